#!/usr/bin/env python3
"""Checks a `kernbench run --json` file against docs/results-schema.md.

Every object the schema's `run --json` section describes (a `### PATH`
heading and its table) must have exactly the fields of the table, in that
order; a top-level field described as "`--kernel` runs only" may be absent.
Prints each difference and exits 1 if there is any, else prints "ok".

Usage: check_results_schema.py RUN.json [SCHEMA.md]
"""
import json
import os
import re
import sys


def schema_tables(md_text):
    """{path: [field, ...]} of the `run --json` section, and the optional fields."""
    section = md_text.split("## `kernbench run --json FILE`", 1)[1].split("\n## ", 1)[0]
    tables, optional = {}, set()
    for block in re.split(r"\n### ", section)[1:]:
        heading, body = block.split("\n", 1)
        path = heading.strip().strip("`")
        fields = []
        for line in body.splitlines():
            if not line.startswith("| `"):
                continue
            cell = line.split("|")[1]
            names = re.findall(r"`([^`]+)`", cell)
            fields.extend(names)
            if "runs only" in line:
                optional.update((path, n) for n in names)
        tables[path] = fields
    return tables, optional


def objects_at(doc, path):
    """The JSON objects at a schema path ("top level", "pes[].commands[]", "kernel")."""
    if path == "top level":
        return [doc]
    found = [doc]
    for part in path.split("."):
        many = part.endswith("[]")
        key = part[:-2] if many else part
        nxt = []
        for o in found:
            if not isinstance(o, dict) or o.get(key) is None:
                continue
            v = o[key]
            nxt.extend(v if many else [v])
        found = nxt
    return found


def check(doc, tables, optional):
    problems = []
    for path, fields in tables.items():
        for i, o in enumerate(objects_at(doc, path)):
            if not isinstance(o, dict):
                problems.append(f"{path} #{i}: not an object")
                continue
            want = [f for f in fields if f in o or (path, f) not in optional]
            got = list(o.keys())
            if got != want:
                missing = [f for f in want if f not in got]
                extra = [f for f in got if f not in want]
                problems.append(f"{path} #{i}: fields {got} differ from the schema's {want}"
                                f" (missing {missing}, not in the schema {extra})")
    if doc.get("schema_version") != 4:
        problems.append(f"schema_version {doc.get('schema_version')}, expected 4")
    return problems


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    here = os.path.dirname(os.path.abspath(__file__))
    md = argv[2] if len(argv) > 2 else os.path.join(here, "..", "docs", "results-schema.md")
    with open(md, encoding="utf-8") as f:
        tables, optional = schema_tables(f.read())
    with open(argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    problems = check(doc, tables, optional)
    for p in problems:
        print(f"{argv[1]}: {p}")
    if not problems:
        print("ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
