#!/usr/bin/env python3
"""Keeps the component catalog documents equal to the build's registry.

The C++ registration is the only registry of node implementations
(docs/adr/0037-one-declaration-per-implementation.md). Two committed
documents are made from it and must not drift:

  config/components.yaml    `kernbench list-components --yaml`
  docs/components.md        `kernbench list-components --markdown`

    scripts/components_doc.py --check [--kernbench build/kernbench]
    scripts/components_doc.py --write [--kernbench build/kernbench]
    scripts/components_doc.py --self-test [--kernbench build/kernbench]

--check exits 1 with a unified diff per drifted document, --write rewrites
them, both exit 2 when the binary fails.
--self-test checks the checker: a copy with one changed default must fail,
an unchanged copy must pass.
"""

import argparse
import difflib
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCUMENTS = (("config/components.yaml", "--yaml"), ("docs/components.md", "--markdown"))


def generated(kernbench, flag):
    r = subprocess.run([kernbench, "list-components", flag], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"components_doc: {kernbench} list-components {flag} exited "
                 f"{r.returncode}: {r.stderr.strip()}")
    return r.stdout


def documents(root, kernbench):
    """[(path, committed text, expected text)] for both documents."""
    out = []
    for rel, flag in DOCUMENTS:
        path = os.path.join(root, rel)
        try:
            with open(path, encoding="utf-8") as f:
                have = f.read()
        except FileNotFoundError:
            have = ""
        out.append((path, have, generated(kernbench, flag)))
    return out


def check(root, kernbench, quiet=False):
    drifted = 0
    for path, have, want in documents(root, kernbench):
        if have == want:
            continue
        drifted += 1
        if not quiet:
            rel = os.path.relpath(path, root)
            sys.stdout.writelines(difflib.unified_diff(
                have.splitlines(True), want.splitlines(True), rel, rel + " (from the build)"))
    if drifted and not quiet:
        print(f"components_doc: {drifted} document(s) differ from the build's registry; "
              "run python3 scripts/components_doc.py --write", file=sys.stderr)
    return 1 if drifted else 0


def write(root, kernbench):
    for path, have, want in documents(root, kernbench):
        if have != want:
            with open(path, "w", encoding="utf-8") as f:
                f.write(want)
            print(f"components_doc: wrote {os.path.relpath(path, root)}")
    return 0


def self_test(kernbench):
    with tempfile.TemporaryDirectory() as tmp:
        for d in ("config", "docs"):
            os.makedirs(os.path.join(tmp, d))
        for rel, _ in DOCUMENTS:
            shutil.copy(os.path.join(ROOT, rel), os.path.join(tmp, rel))
        if check(tmp, kernbench, quiet=True) != 0:
            print("self-test: the committed documents already differ", file=sys.stderr)
            return 1
        for rel, old, new in (("config/components.yaml", 'default: "32"', 'default: "33"'),
                              ("docs/components.md", "| `mac_rows` | uint | 32 |",
                               "| `mac_rows` | uint | 16 |")):
            path = os.path.join(tmp, rel)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if old not in text:
                print(f"self-test: {rel} has no '{old}' to change", file=sys.stderr)
                return 1
            with open(path, "w", encoding="utf-8") as f:
                f.write(text.replace(old, new, 1))
            if check(tmp, kernbench, quiet=True) == 0:
                print(f"self-test: a changed default in {rel} passed the check", file=sys.stderr)
                return 1
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    print("self-test: a drifted catalog fails, the committed one passes")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--self-test", action="store_true")
    ap.add_argument("--kernbench", default=os.path.join(ROOT, "build", "kernbench"))
    a = ap.parse_args()
    if not os.access(a.kernbench, os.X_OK):
        print(f"components_doc: no kernbench binary at {a.kernbench}", file=sys.stderr)
        return 2
    if a.self_test:
        return self_test(a.kernbench)
    return write(ROOT, a.kernbench) if a.write else check(ROOT, a.kernbench)


if __name__ == "__main__":
    sys.exit(main())
