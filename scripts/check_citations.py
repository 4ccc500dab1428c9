#!/usr/bin/env python3
"""Every ADR a file cites is a record that exists, and founding records never
pass for the project's own.

The project's decision records are docs/adr/NNNN-*.md. The founding records
(../shared/seeds/: the design's records numbered 0014, 0018, 0019, 0020, 0021
and 0042) share those numbers, so they are always cited as "seed ADR-00NN"
(issue 30). This script reads every file git tracks (text
files under the source folders and docs) and fails, naming file:line, when

  - a bare "ADR-NNNN" names no file in docs/adr/ (a founding record cited
    without "seed", or a record that does not exist), or
  - a decision "D<n>" of record 0014 is cited without "seed" (the decisions
    are the founding record's; the project's ADR-0014 has rules).

  scripts/check_citations.py                 the repository
  scripts/check_citations.py --root DIR      another tree
  scripts/check_citations.py --self-test     check the checker: a small tree
                                             with sound citations passes, and
                                             each of its wrong ones fails

Exit 0 when every citation is sound, 1 with one line per bad one.
"""

import argparse
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TEXT = {".md", ".cpp", ".hpp", ".h", ".capnp", ".yaml", ".yml", ".py", ".sh",
        ".txt", ".cmake", ".json"}
# "ADR-NNNN", "ADR NNNN" and "ADRNNNN", not preceded by "seed" (any case,
# a blank or a line break between them, and a comment marker on a new line).
CITE = re.compile(r"ADR[- ]?(\d{4})(\s+D\d)?")
SEED_BEFORE = re.compile(r"seed(\s|//|#|\*|>)*$", re.IGNORECASE)


def project_records(root: pathlib.Path) -> set:
    return {p.name[:4] for p in (root / "docs" / "adr").glob("[0-9][0-9][0-9][0-9]-*.md")}


def tracked_files(root: pathlib.Path):
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files"], check=True,
                             capture_output=True, text=True).stdout.split("\n")
        names = [n for n in out if n]
    except (OSError, subprocess.CalledProcessError):
        names = [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()]
    for n in names:
        p = root / n
        if p.suffix in TEXT or p.name == "CMakeLists.txt":
            if "fuzz/corpus" in n or n.startswith("tests/cli/expected/"):
                continue
            yield n, p


def problems(root: pathlib.Path):
    records = project_records(root)
    for name, path in tracked_files(root):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for m in CITE.finditer(text):
            before = text[max(0, m.start() - 12):m.start()]
            if SEED_BEFORE.search(before):
                continue
            number, decision = m.group(1), m.group(2)
            line = text.count("\n", 0, m.start()) + 1
            if number not in records:
                yield (f"{name}:{line}: ADR-{number} is not a record of docs/adr/ "
                       f"(a founding record is cited as 'seed ADR-{number}')")
            elif decision and number == "0014":
                yield (f"{name}:{line}: ADR-0014{decision} is a decision of the founding "
                       f"record: cite it as 'seed ADR-0014{decision}'")


def self_test() -> int:
    """A tree of two records and files that cite them right, then one wrong
    citation at a time: the checker must pass the first and fail each other,
    naming the file and line."""
    import tempfile
    a = "ADR-"  # this file's own text must cite nothing
    good = {
        "docs/adr/0001-a.md": f"# {a}0001: a\nSee {a}0002 and seed {a}0020 D3.\n",
        "docs/adr/0014-b.md": f"# {a}0014: b\nAmends {a}0001.\n",
        "src/x.cpp": f"// seed\n// {a}0042 plans; {a}0014 rule 3; seed {a}0014 D5.1\n",
    }
    wrong = [
        ("src/y.cpp", f"// the two-pass model ({a}0020 D2)\n", f"src/y.cpp:1: {a}0020"),
        ("docs/z.md", f"text\nPE_CPU ({a}0014 D1)\n", f"docs/z.md:2: {a}0014 D1"),
        ("src/w.hpp", f"/// {a}0099\n", f"src/w.hpp:1: {a}0099"),
    ]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        for name, text in good.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        (root / "docs/adr/0002-c.md").write_text(f"# {a}0002: c\n")
        found = list(problems(root))
        if found:
            failures.append(f"sound citations reported: {found}")
        for name, text, expect in wrong:
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            found = list(problems(root))
            if len(found) != 1 or not found[0].startswith(expect):
                failures.append(f"{name}: expected one problem starting '{expect}', got {found}")
            path.unlink()
    print(f"self-test: {'failed: ' + '; '.join(failures) if failures else 'passed'}")
    return 1 if failures else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=pathlib.Path, default=ROOT)
    ap.add_argument("--self-test", action="store_true", help="check the checker")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    bad = list(problems(args.root))
    for b in bad:
        print(b)
    if bad:
        print(f"check_citations: {len(bad)} citation(s) to fix", file=sys.stderr)
        return 1
    print(f"check_citations: every ADR citation names its record "
          f"({len(project_records(args.root))} project records)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
