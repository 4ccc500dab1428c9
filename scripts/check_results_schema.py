#!/usr/bin/env python3
"""Checks `kernbench run --json` files against schema/results.schema.json.

Each file must validate against the JSON Schema (draft 2020-12: every
field, its type, its values) and have its keys in the schema's order (the
order of each object's `properties`; open maps such as `units[].figures`
keep their own). Prints each problem as `FILE: $.json.path: what`, a
problem that repeats over the elements of an array once with the number of
other places, and exits 1 if there is any; else prints "ok" (several files:
"ok: N files").

Usage: check_results_schema.py [--schema SCHEMA.json] [--collected DIR]
                               [--min-files N] [RUN.json | DIR]...

A DIR argument stands for every `*.json` in it. `--collected DIR` is the
folder the CLI tests fill (KB_RESULTS_COLLECT, tests/cli/cli_support.cpp):
DIR/json/ holds a copy of every `run --json` file the tests wrote, DIR/tests/
one file per test that ran, holding the number of tests of its executable.
With --min-files N, a whole-suite run (every test ran) that collected fewer
than N files is a problem: the collection is broken, not the results. When
only some tests ran (`ctest -R`), the minimum does not apply.
"""
import argparse
import glob
import json
import os
import re
import sys

try:
    import jsonschema
except ImportError:  # pragma: no cover - a missing package is a setup error
    sys.exit("check_results_schema.py: needs python3-jsonschema (scripts/setup.sh installs it)")

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SCHEMA = os.path.normpath(os.path.join(HERE, "..", "schema", "results.schema.json"))


def json_path(parts):
    """$.pes[0].commands[3] of a jsonschema error path."""
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def resolve(schema, root):
    """`schema` with a local `$ref` followed (siblings such as description dropped)."""
    while isinstance(schema, dict) and "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/"):
            raise ValueError(f"only local $ref is supported, not {ref}")
        node = root
        for part in ref[2:].split("/"):
            node = node[part]
        schema = node
    return schema


def object_schema(schema, root):
    """The object schema among `schema`'s choices (oneOf/anyOf with null), or None."""
    schema = resolve(schema, root)
    if not isinstance(schema, dict):
        return None
    for choice in schema.get("oneOf", []) + schema.get("anyOf", []):
        found = object_schema(choice, root)
        if found is not None:
            return found
    return schema if "properties" in schema or schema.get("type") == "object" else None


def order_problems(doc, schema, root, path=()):
    """(path, message) for every closed object whose keys are out of the schema's order."""
    if isinstance(doc, list):
        items = resolve(schema, root).get("items", {}) if isinstance(schema, dict) else {}
        for i, v in enumerate(doc):
            yield from order_problems(v, items, root, path + (i,))
        return
    if not isinstance(doc, dict):
        return
    s = object_schema(schema, root)
    if s is None:
        return
    props = s.get("properties", {})
    if s.get("additionalProperties") is False:
        order = list(props)
        known = [k for k in doc if k in props]
        for before, key in zip(known, known[1:]):
            if order.index(key) < order.index(before):
                yield path, (f"key '{key}' comes after '{before}'; the schema's order is "
                             + ", ".join(k for k in order if k in doc))
                break
    for k, v in doc.items():
        if k in props:
            yield from order_problems(v, props[k], root, path + (k,))


def message_of(error):
    """The problem in words: jsonschema's message, plainer for a missing or unknown field."""
    if error.validator == "required":
        m = re.match(r"'(.*)' is a required property", error.message)
        return f"missing field '{m.group(1)}'" if m else error.message
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = error.schema.get("properties", {})
        extra = [k for k in error.instance if k not in known]
        if error.schema.get("additionalProperties") is False:
            pats = error.schema.get("patternProperties", {})
            extra = [k for k in extra if not any(re.search(p, k) for p in pats)]
            return f"field(s) {extra} not in the schema"
    return error.message


def problems_of(doc, validator, root):
    """[(path, message)] of one document: schema errors, then key-order problems."""
    out = [(tuple(e.absolute_path), message_of(e)) for e in validator.iter_errors(doc)]
    out.extend(order_problems(doc, root, root))
    return out


def grouped(problems):
    """One line per distinct (message, path with array indices dropped)."""
    groups = {}
    for path, msg in problems:
        shape = tuple("[]" if isinstance(p, int) else p for p in path)
        groups.setdefault((shape, msg), []).append(path)
    for (_, msg), paths in groups.items():
        more = f" (and {len(paths) - 1} more like it)" if len(paths) > 1 else ""
        yield f"{json_path(paths[0])}: {msg}{more}"


def files_in(arg):
    return sorted(glob.glob(os.path.join(arg, "*.json"))) if os.path.isdir(arg) else [arg]


def collected(folder, min_files):
    """The files of a --collected folder and its problems."""
    files = sorted(glob.glob(os.path.join(folder, "json", "*.json")))
    tests = glob.glob(os.path.join(folder, "tests", "*"))
    if not tests:
        return files, [f"{folder}: no test recorded itself in tests/ "
                       "(KB_RESULTS_COLLECT did not reach the tests, or none ran)"]
    totals = set()
    for t in tests:
        with open(t, encoding="utf-8") as f:
            totals.add(f.read().strip())
    whole = len(totals) == 1 and str(len(tests)) == totals.pop()
    if whole and len(files) < min_files:
        return files, [f"{folder}: the whole suite ran ({len(tests)} tests) but only "
                       f"{len(files)} `run --json` file(s) were collected, expected at least "
                       f"{min_files}: the collection is broken"]
    if not whole:
        print(f"{folder}: {len(tests)} test(s) ran, not the whole suite: "
              f"{len(files)} file(s) collected, no minimum")
    return files, []


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--schema", default=DEFAULT_SCHEMA)
    ap.add_argument("--collected", metavar="DIR")
    ap.add_argument("--min-files", type=int, default=0)
    ap.add_argument("files", nargs="*", metavar="RUN.json|DIR")
    args = ap.parse_args(argv[1:])
    if not args.files and not args.collected:
        ap.error("give at least one file, folder or --collected DIR")
    try:
        with open(args.schema, encoding="utf-8") as f:
            root = json.load(f)
        jsonschema.Draft202012Validator.check_schema(root)
    except (OSError, ValueError, jsonschema.SchemaError) as e:
        print(f"{args.schema}: not a usable schema: {e}", file=sys.stderr)
        return 2
    validator = jsonschema.Draft202012Validator(root)
    files, lines = [], []
    if args.collected:
        files, lines = collected(args.collected, args.min_files)
    for a in args.files:
        files.extend(files_in(a))
    for name in files:
        try:
            with open(name, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            lines.append(f"{name}: not a readable JSON file: {e}")
            continue
        lines.extend(f"{name}: {line}" for line in grouped(problems_of(doc, validator, root)))
    for line in lines:
        print(line)
    if not lines:
        print("ok" if len(files) == 1 else f"ok: {len(files)} files")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
