#!/usr/bin/env python3
"""The `run --json` tables of docs/results-schema.md, from schema/results.schema.json.

The schema is the one place the fields are written down: this script turns
it into one markdown table (field, type, meaning) per object, between the
marker comments of the doc, so that the doc cannot drift from the schema.

Usage: results_schema_doc.py [--write | --check] [--schema FILE] [--doc FILE]

  (no option)  print the generated part
  --write      rewrite the part between the markers in the doc
  --check      exit 1, naming the drift (a diff), if the doc's part differs
"""
import argparse
import difflib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BEGIN = ("<!-- BEGIN run --json tables: generated from schema/results.schema.json by "
         "scripts/results_schema_doc.py --write; edit the schema, not these tables -->")
END = "<!-- END run --json tables -->"


def resolve(s, root):
    """(schema, $defs name or None) with a local $ref followed."""
    name = None
    while isinstance(s, dict) and "$ref" in s:
        name = s["$ref"].rsplit("/", 1)[1]
        s = root["$defs"][name]
    return s, name


def type_text(s, root):
    """The table's type column: int, string, [object], `a`, `b` or null, ..."""
    if "const" in s:
        return f"`{s['const']}`"
    if "enum" in s:
        names = [f"`{v}`" for v in s["enum"] if v is not None]
        return ", ".join(names) + (" or null" if None in s["enum"] else "")
    if "oneOf" in s or "anyOf" in s:
        return " or ".join(type_text(c, root) for c in s.get("oneOf", s.get("anyOf")))
    r, _ = resolve(s, root)
    if r is not s:
        return type_text(r, root)
    t = s.get("type", "any")
    names = {"integer": "int", "number": "number", "string": "string", "boolean": "bool",
             "null": "null", "object": "object"}
    if t == "array":
        inner = type_text(s.get("items", {}), root)
        n = s.get("minItems")
        return f"[{inner}]" + (f", {n}" if n is not None and n == s.get("maxItems") else "")
    if isinstance(t, list):
        return " or ".join(names.get(x, x) for x in t)
    return names.get(t, t)


def meaning(s):
    """The meaning column: the description, with the version that added the field."""
    since = s.get("x-since")
    text = s.get("description", "").replace("|", "\\|")
    return (f"*({since})* " if since else "") + text


def children(s, root):
    """The object schemas below `s`: [(path suffix, schema as written)]."""
    out = []
    r, _ = resolve(s, root)
    for choice in r.get("oneOf", []) + r.get("anyOf", []):
        out.extend(children(choice, root))
    for key, sub in r.get("properties", {}).items():
        out.extend(object_paths(key, sub, root))
    return out


def object_paths(key, s, root):
    """[(key or key[] , schema)] of the object a property holds, if it holds one."""
    r, _ = resolve(s, root)
    if r.get("type") == "array":
        item, _ = resolve(r.get("items", {}), root)
        return [(key + "[]", r["items"])] if item.get("type") == "object" else []
    for choice in r.get("oneOf", []):
        c, _ = resolve(choice, root)
        if c.get("type") == "object":
            return [(key, choice)]
    if r.get("type") == "object" and ("properties" in r or "patternProperties" in r):
        return [(key, s)]
    return []


def sections(root):
    """[(paths, schema)] in document order; one $def met at several paths is one section."""
    order, paths = [], {}

    def walk(path, s):
        r, name = resolve(s, root)
        key = name or path
        if key not in paths:
            paths[key] = []
            order.append((key, r, name is not None))
        paths[key].append(path)
        if len(paths[key]) == 1:
            for suffix, sub in children(s, root):
                walk(suffix if path == "top level" else f"{path}.{suffix}", sub)

    walk("top level", root)
    return [(paths[k], r, is_def) for k, r, is_def in order]


def heading(paths):
    if len(paths) > 2 and len({p.rsplit(".", 1)[0] for p in paths}) == 1:
        return f"`{paths[0].rsplit('.', 1)[0]}.*`"
    return ", ".join(p if p == "top level" else f"`{p}`" for p in paths)


def table(s, root):
    rows = ["| field | type | meaning |", "| --- | --- | --- |"]
    for key, sub in s.get("properties", {}).items():
        rows.append(f"| `{key}` | {type_text(sub, root)} | {meaning(sub)} |")
    for pattern, sub in s.get("patternProperties", {}).items():
        rows.append(f"| `{sub.get('title', pattern)}` | {type_text(sub, root)} | {meaning(sub)} |")
    extra = s.get("additionalProperties")
    if isinstance(extra, dict):
        name = extra.get("title", "other")
        rows.append(f"| *{name}* | {type_text(extra, root)} | {meaning(extra)} |")
    return rows


def generate(root):
    version = root["properties"]["schema_version"]["const"]
    lines = [BEGIN, "", f"## `kernbench run --json FILE` (schema_version {version})", ""]
    lines.append("Every object lists its fields in the order a file has them; every field "
                 "is there (`kernel` only for `--kernel` runs) and no other.")
    for paths, s, is_def in sections(root):
        lines += ["", f"### {heading(paths)}", ""]
        if is_def and "description" in s:  # a property's own is its row's meaning
            lines += [s["description"], ""]
        lines += table(s, root)
    lines += ["", END]
    return "\n".join(lines) + "\n"


def split_doc(text, doc):
    b, e = text.find(BEGIN), text.find(END)
    if b < 0 or e < b:
        sys.exit(f"{doc}: no marker comments (the lines {BEGIN!r} and {END!r})")
    return text[:b], text[b:e + len(END) + 1], text[e + len(END) + 1:]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    root = os.path.dirname(HERE)
    ap.add_argument("--schema", default=os.path.join(root, "schema", "results.schema.json"))
    ap.add_argument("--doc", default=os.path.join(root, "docs", "results-schema.md"))
    args = ap.parse_args(argv[1:])
    with open(args.schema, encoding="utf-8") as f:
        part = generate(json.load(f))
    if not args.write and not args.check:
        sys.stdout.write(part)
        return 0
    with open(args.doc, encoding="utf-8") as f:
        text = f.read()
    head, old, tail = split_doc(text, args.doc)
    if args.write:
        if old != part:
            with open(args.doc, "w", encoding="utf-8") as f:
                f.write(head + part + tail)
        return 0
    if old == part:
        print("ok")
        return 0
    print(f"{args.doc}: its `run --json` tables differ from {args.schema} "
          "(run scripts/results_schema_doc.py --write):")
    sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), part.splitlines(True),
                                               args.doc, "generated from the schema"))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
