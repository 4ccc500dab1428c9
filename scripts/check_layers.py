#!/usr/bin/env python3
"""Fails when an #include crosses a layer the wrong way.

The layers are the table under "## Layers" in docs/architecture.md, read
here, so the doc and the check cannot disagree. Each row of the table is
one unit: a layer number and the files it holds, as patterns in backticks:

    `dir/`        the folder and everything below it
    `dir/*`       the files directly in the folder
    `dir/name.*`  the files of that name (any extension); `*` never
                  matches a '/'
    `dir/f.hpp`   that file

A file belongs to the row of its most specific pattern (the longest text
before the first `*`). It may include the files of its own row and of rows
of a lower layer: not those of another row of its own layer (rows that share
a number do not know each other) and not those of a higher one. A header in
a `detail/` folder is private to the folder above it (and the rows of the
top layer, the tests). A source file that no row holds fails the check: a
new folder gets a row before it gets code.

Only `#include "..."` lines count (`<...>` names other libraries). A name is
looked for beside the including file first, then from the repository root;
one that is in neither place (a generated header such as
messages/sim.capnp.h) counts when a row holds its path, and is skipped when
none does (kb_version.hpp, written into the build folder).

The kernel API is the row that holds kernels/tl.hpp: cmake/install.cmake
must install exactly its headers (kb_kernel_api_headers), so what ships is
what this check keeps self-contained.

    scripts/check_layers.py [--root DIR]   check DIR (default: the checkout)
    scripts/check_layers.py --self-test    check the checker

Exit 0 when every include goes the right way, 1 with one line per wrong
include (file:line, what it includes, both rows), 2 when the table cannot be
read. --self-test copies the checkout's sources and its layers table to a
temporary folder, adds one wrong include at a time and passes when each is
caught and the untouched copy passes.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

DOC = "docs/architecture.md"
INSTALL = "cmake/install.cmake"
API_HEADER = "kernels/tl.hpp"
SOURCE_EXT = (".hpp", ".cpp", ".h", ".cc", ".hpp.in", ".cpp.in")
SKIP_DIRS = {".git", "build", "build-dev", "build-fuzz", "__pycache__", "node_modules"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


class table_error(Exception):
    pass


class row:
    def __init__(self, layer, patterns, line):
        self.layer = layer
        self.patterns = patterns
        self.line = line  # of the doc, for messages

    def name(self):
        return ", ".join(self.patterns)


def pattern_regex(p):
    if p.endswith("/"):
        return re.compile(re.escape(p) + ".*")
    return re.compile("[^/]*".join(re.escape(part) for part in p.split("*")))


def read_layers(root):
    """The rows of the table under '## Layers' in docs/architecture.md."""
    path = os.path.join(root, DOC)
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise table_error(f"{DOC}: {e.strerror}")
    rows, inside = [], False
    for n, text in enumerate(lines, 1):
        if text.startswith("## "):
            inside = text.strip() == "## Layers"
            continue
        if not inside or not text.startswith("|"):
            continue
        cells = [c.strip() for c in text.strip().strip("|").split("|")]
        if not cells[0].isdigit():
            continue  # the header and its rule
        patterns = re.findall(r"`([^`]+)`", cells[1] if len(cells) > 1 else "")
        if not patterns:
            raise table_error(f"{DOC}:{n}: a layer row without `patterns`")
        rows.append(row(int(cells[0]), patterns, n))
    if not rows:
        raise table_error(f"{DOC}: no '## Layers' table")
    return rows


class layers:
    def __init__(self, rows):
        self.rows = rows
        self.matchers = []
        for r in rows:
            for p in r.patterns:
                self.matchers.append((len(p.split("*")[0]), pattern_regex(p), r))
        self.matchers.sort(key=lambda m: -m[0])

    def row_of(self, path):
        for _, rx, r in self.matchers:
            if rx.fullmatch(path):
                return r
        return None

    def top(self):
        return max(r.layer for r in self.rows)


def sources(root):
    """The source files of the tree: those git knows (tracked, or new and not
    ignored) in a checkout, so that build folders of any name (/build*/ in
    .gitignore: build-asan/ holds generated headers and CMake's probes) are
    never read; every file but the build folders' in a copy without git."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard"],
                             check=True, capture_output=True, text=True).stdout
        if os.path.isdir(os.path.join(root, ".git")):
            yield from sorted(n for n in out.split("\n") if n.endswith(SOURCE_EXT)
                              and os.path.isfile(os.path.join(root, n)))
            return
    except (OSError, subprocess.CalledProcessError):
        pass
    for dirpath, dirnames, filenames in os.walk(root):
        top = dirpath == root
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")
                             and not (top and d.startswith("build")))
        for f in sorted(filenames):
            if f.endswith(SOURCE_EXT):
                yield os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/")


def resolve(root, includer, name, known):
    """The repository path `name` means in `includer`, or None."""
    beside = os.path.normpath(os.path.join(os.path.dirname(includer), name)).replace(os.sep, "/")
    if os.path.isfile(os.path.join(root, beside)):
        return beside
    if os.path.isfile(os.path.join(root, name)) or known(name):
        return name
    return None


def private_owner(path):
    """The folder a `detail/` header is private to, or None."""
    parts = path.split("/")
    if "detail" in parts[:-1]:
        return "/".join(parts[: parts.index("detail")])
    return None


def check_install(root, table):
    """A message if the install does not ship exactly the kernel API row."""
    path = os.path.join(root, INSTALL)
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        m = re.search(r"set\(kb_kernel_api_headers\s+([^)]*)\)", f.read())
    api = table.row_of(API_HEADER)
    if m is None or api is None:
        return [f"{INSTALL}: no kb_kernel_api_headers, or no row holds {API_HEADER}"]
    installed = set(m.group(1).split())
    if installed != set(api.patterns):
        return [f"{INSTALL}: installs {sorted(installed)}, the kernel API row of {DOC} "
                f"holds {sorted(api.patterns)}"]
    return []


def check(root):
    """The wrong-way includes under `root`, one message each."""
    table = layers(read_layers(root))
    top = table.top()
    wrong = check_install(root, table)
    for path in sources(root):
        src = table.row_of(path)
        if src is None:
            wrong.append(f"{path}: in no row of the layers table ({DOC} '## Layers')")
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for n, text in enumerate(f, 1):
                m = INCLUDE.match(text)
                if not m:
                    continue
                target = resolve(root, path, m.group(1), lambda p: table.row_of(p) is not None)
                if target is None:
                    continue
                dst = table.row_of(target)
                where = f"{path}:{n}: includes {target}"
                owner = private_owner(target)
                if owner and src.layer != top and not path.startswith(owner + "/"):
                    wrong.append(f"{where}, private to {owner}/")
                if dst is None:
                    wrong.append(f"{where}, which is in no row of the layers table")
                elif dst is src:
                    continue
                elif dst.layer > src.layer:
                    wrong.append(f"{where}: layer {dst.layer} ({dst.name()}) is above "
                                 f"layer {src.layer} ({src.name()})")
                elif dst.layer == src.layer:
                    wrong.append(f"{where}: {dst.name()} is beside {src.name()} "
                                 f"(both layer {src.layer}), not below it")
    return wrong


# -- self-test: the checker must catch a wrong include ------------------------


def copy_sources(root, to):
    for path in list(sources(root)) + [DOC, INSTALL]:
        os.makedirs(os.path.join(to, os.path.dirname(path)), exist_ok=True)
        shutil.copyfile(os.path.join(root, path), os.path.join(to, path))


def add_line(path, text):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines(keepends=True)
    at = next((i for i, t in enumerate(lines) if INCLUDE.match(t)), 0)
    lines.insert(at, text + "\n")
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(lines)


def ship_runtime_header(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace("set(kb_kernel_api_headers", "set(kb_kernel_api_headers\n"
                             "  runtime/plan/gemm_plan.hpp", 1))


# (file to change, line to add or a function that changes it, what the
# failure must name)
SELF_TEST_CASES = [
    ("runtime/engine/node.hpp", '#include "runtime/kernel/kernel_context.hpp"',
     "runtime/engine/node.hpp:"),
    ("runtime/io/json_writer.hpp", '#include "runtime/report/run_report.hpp"',
     "runtime/io/json_writer.hpp:"),
    ("actors/pe_scheduler.cpp", '#include "actors/builtin_kinds.hpp"',
     "actors/pe_scheduler.cpp:"),
    ("kernels/tl.hpp", '#include "runtime/plan/gemm_plan.hpp"', "kernels/tl.hpp:"),
    ("runtime/plan/gemm_plan.hpp", '#include "runtime/config/param_reader.hpp"',
     "beside"),
    ("runtime/kernel/kernel_context.cpp", '#include "actors/detail/names.hpp"',
     "private to actors/"),
    ("runtime/newfolder/thing.cpp", '#include "runtime/sim_time.hpp"',
     "runtime/newfolder/thing.cpp: in no row"),
    (INSTALL, ship_runtime_header, f"{INSTALL}: installs"),
]


def self_test(root):
    failures = []
    with tempfile.TemporaryDirectory(prefix="kb-layers-") as tmp:
        clean = os.path.join(tmp, "clean")
        copy_sources(root, clean)
        got = check(clean)
        if got:
            failures.append("the untouched copy fails: " + "; ".join(got[:3]))
        for n, (file, line, want) in enumerate(SELF_TEST_CASES):
            case = os.path.join(tmp, f"case{n}")
            shutil.copytree(clean, case)
            path = os.path.join(case, file)
            if callable(line):
                line(path)
                line = line.__name__
            elif os.path.exists(path):
                add_line(path, line)
            else:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(line + "\n")
            got = check(case)
            if not any(want in g for g in got):
                failures.append(f"{file} with {line}: not caught (want '{want}', got {got})")
    print(f"self-test: {'failed: ' + '; '.join(failures) if failures else 'passed'}")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description="Fail when an #include crosses a layer "
                                 f"the wrong way (the layers: {DOC} '## Layers').")
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--root", default=here, help="the tree to check (default: this checkout)")
    ap.add_argument("--self-test", action="store_true", help="check the checker")
    args = ap.parse_args()
    try:
        if args.self_test:
            return self_test(args.root)
        wrong = check(args.root)
    except table_error as e:
        print(f"check_layers: {e}", file=sys.stderr)
        return 2
    for w in wrong:
        print(w)
    if wrong:
        print(f"check_layers: {len(wrong)} wrong-way include(s); the layers are "
              f"in {DOC} '## Layers'", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
