#!/usr/bin/env python3
"""Keeps the kernbench output shown in README.md and docs/*.md true.

A code block that shows kernbench's output is marked by an HTML comment on
the line right before its opening fence:

    <!-- sample: kernbench run --M 512 --K 512 --N 512 | lines 1-8,17-19 -->
    ```
    ...the output...
    ```

The marker holds a command, then filters:

  command   run from the repository root, without a shell. `kernbench` is
            the build's binary (--kernbench). Leading NAME=VALUE words set
            environment variables. `{tmp}` is a fresh temporary directory of
            this sample, `{build}` the directory of the binary. Several
            commands joined by " && " run in turn (with LC_ALL=C and no
            KB_* variable but those the marker sets); the earlier ones prepare
            files (they must exit 0), the block shows the last one's output.
  stderr    show standard error instead of standard output; `both`:
            standard error, then standard output (a sweep's progress, then
            its summary).
  exit N    the last command must exit N (default 0).
  lines S   keep these lines of the output, 1-based: `1-8,17-19,23`.
  grep RE   keep the lines that match the Python regular expression RE.
  head N    keep the first N lines (of what is left); `tail N`: the last N.
  fields S  keep these comma-separated fields of each line (`1-3`), then
            `,...` where a line had more (CSV rows).
  needs P   skip the block (not a failure) when the file P does not exist,
            e.g. a test kernel library of a build without tests.
  skip WHY  never run it; WHY says why (for output no cheap run can make).

Filters apply in order (a " | " with blanks around it separates them, so a
regular expression may hold `a|b`). Where lines were left out, the block
shows a line `...`, indented like the first non-blank line left out; so does
the end when the output goes on. In the output, `{tmp}/` is written as nothing (`{tmp}/run.trace`
reads `run.trace`), the binary's directory as `build` and the repository
root as `<checkout>`; trailing blanks are dropped.

Volatile text (VOLATILE below: wall-clock times, events/s, RSS, temporary
paths, the version and git hash, ...) is replaced by `…` in both the doc and
the run's output for the comparison only: `--check` passes when they agree
but for those, and `--write` writes the run's real text, leaving a block
untouched when it already agrees.

    scripts/doc_samples.py --check [--kernbench build/kernbench] [FILE...]
    scripts/doc_samples.py --write [--kernbench build/kernbench] [FILE...]
    scripts/doc_samples.py --self-test [--kernbench build/kernbench]

--check exits 1 with a unified diff per drifted block (file and line of the
marker), --write rewrites the drifted blocks in place; both exit 2 on a
malformed marker, a missing binary or a sample whose command failed.
FILE defaults to README.md and docs/*.md. --self-test checks the checker:
a block with a changed number must fail, a changed wall time must not.
"""

import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MASK = "…"
MARKER = re.compile(r"^<!-- sample: (.*) -->\s*$")
FENCE = re.compile(r"^(```|~~~)")
RANGES = r"\d+(-\d+)?(,\d+(-\d+)?)*"  # 1-8,17-19,23
TIMEOUT_S = 120

# -- volatile text: each match is replaced by MASK for the comparison ---------
VOLATILE = [
    ("wall time", r"[\d.]+(?= s wall)"),
    ("events per second", r"[\d.]+(?= (?:[kMG] )?events/s)"),
    ("phase 2 batches and seconds", r"(?<=ops in )\d+(?= batches)|(?<=GFLOP, )[\d.]+(?= s\b)"),
    ("a sweep point's wall time", r"(?<=\()[\d.]+(?= s\))"),
    ("a sweep's wall time", r"(?<=wall )[\d.]+ s for [\d.]+ s of point wall time \([\d.]+x\)"),
    ("parallel jobs", r"\d+(?= at a time)|(?<=with )\d+(?= job\(s\))"),
    ("progress line", r"(?<=: )[\d.]+ s(?=: simulated)|(?<=simulated )[\d.]+(?= us, )"
                      r"|\d+(?=/\d+ commands done)|\d+(?=% of tiles)"
                      r"|(?<=% of tiles, )(?:about \d+ s left|time left not known yet)"),
    ("resident memory", r"[\d.]+ ?[KMG]i?B(?= (?:peak )?RSS)|(?<=RSS )[\d.]+ ?[KMG]i?B"),
    ("a phase's wall time, share and memory (--timings)",
     # (right-aligned: a number of more digits takes the blanks before it)
     r"\d+\.\d{3}(?= s +\d+\.\d%)|(?<=\d s )\s*\d+\.\d(?=%)|(?<=%) +[\d.]+(?= MiB)"),
    ("a node kind's heap in all and a node (--memory; right-aligned)",
     r" +[\d.]+ (?:B|KiB|MiB)(?= +[\d.]+ (?:B|KiB|MiB)(?:\n|$))|(?<=B) +[\d.]+ (?:B|KiB|MiB)(?=\n|$)"),
    ("null batches between processes (how many depends on timing)",
     r"(?<=processes, )\d+(?= batches)|\d+(?= bytes \(Cap'n Proto\))"
     r"|(?<=per simulated us: )[\d.]+(?= batches)|(?<=events, )\d+(?= bytes$)"),
    ("temporary path", r"/tmp/\S+"),
    ("version and git hash", r"(?<=kernbench )\d+\.\d+\.\d+\S* \((?:[0-9a-f]+|unknown)\)"),
]
VOLATILE_RE = re.compile("|".join(f"(?:{r})" for _, r in VOLATILE))


def mask(text):
    return VOLATILE_RE.sub(MASK, text)


class SampleError(Exception):
    """A marker that cannot be read or a command that did not run as asked."""


# -- markers --------------------------------------------------------------------
@dataclass
class Sample:
    path: Path
    line: int            # 1-based line of the marker
    spec: str
    body_start: int      # index of the first line inside the fence
    body_end: int        # index of the closing fence
    commands: list = field(default_factory=list)
    filters: list = field(default_factory=list)
    stream: str = "stdout"
    exit_code: int = 0
    needs: list = field(default_factory=list)
    skip: str = ""

    @property
    def where(self):
        try:
            return f"{self.path.resolve().relative_to(ROOT)}:{self.line}"
        except ValueError:
            return f"{self.path}:{self.line}"


def parse_spec(sample):
    parts = sample.spec.split(" | ")
    sample.commands = [c.strip() for c in parts[0].split(" && ")]
    if not all(sample.commands):
        raise SampleError(f"{sample.where}: empty command in marker")
    for part in parts[1:]:
        name, _, arg = part.strip().partition(" ")
        arg = arg.strip()
        if name in ("stderr", "both") and not arg:
            sample.stream = name
        elif name == "exit" and arg.isdigit():
            sample.exit_code = int(arg)
        elif name in ("lines", "fields") and re.fullmatch(RANGES, arg.replace(" ", "")):
            sample.filters.append((name, arg.replace(" ", "")))
        elif name == "grep" and arg:
            try:
                sample.filters.append(("grep", re.compile(arg)))
            except re.error as e:
                raise SampleError(f"{sample.where}: grep {arg}: {e}") from e
        elif name in ("head", "tail") and arg.isdigit():
            sample.filters.append((name, int(arg)))
        elif name == "needs" and arg:
            sample.needs.append(arg)
        elif name == "skip" and arg:
            sample.skip = arg
        else:
            raise SampleError(f"{sample.where}: unknown or incomplete filter '{part.strip()}' "
                              "(known: stderr, both, exit N, lines A-B,C, grep RE, head N, tail N, "
                              "fields A-B, needs PATH, skip WHY)")


def find_samples(path, lines):
    samples = []
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            i += 1
            continue
        if i + 1 >= len(lines) or not FENCE.match(lines[i + 1]):
            raise SampleError(f"{path}:{i + 1}: a sample marker must be followed by a code fence")
        fence = FENCE.match(lines[i + 1]).group(1)
        end = i + 2
        while end < len(lines) and lines[end].rstrip() != fence:
            end += 1
        if end >= len(lines):
            raise SampleError(f"{path}:{i + 2}: code block never closed")
        s = Sample(path, i + 1, m.group(1).strip(), i + 2, end)
        parse_spec(s)
        samples.append(s)
        i = end + 1
    return samples


# -- running ------------------------------------------------------------------
def run_sample(sample, kernbench):
    """Returns the block's text as the run makes it (lines, no newline)."""
    build = str(Path(kernbench).resolve().parent)
    with tempfile.TemporaryDirectory(prefix="kb-doc-sample-") as tmp:
        result = None
        for n, command in enumerate(sample.commands):
            words = [w.replace("{tmp}", tmp).replace("{build}", build)
                     for w in shlex.split(command)]
            env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
            env["LC_ALL"] = "C"
            while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
                key, _, value = words.pop(0).partition("=")
                env[key] = value
            if not words:
                raise SampleError(f"{sample.where}: no program in '{command}'")
            if words[0] == "kernbench":
                words[0] = str(Path(kernbench).resolve())
            try:
                result = subprocess.run(words, cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                                        capture_output=True, text=True, errors="replace",
                                        timeout=TIMEOUT_S)
            except (OSError, subprocess.TimeoutExpired) as e:
                raise SampleError(f"{sample.where}: {command}: {e}") from e
            last = n == len(sample.commands) - 1
            want = sample.exit_code if last else 0
            if result.returncode != want:
                raise SampleError(f"{sample.where}: {command}: exit {result.returncode}, "
                                  f"expected {want}\n{result.stderr[-2000:]}")
        text = {"stdout": result.stdout, "stderr": result.stderr,
                "both": result.stderr + result.stdout}[sample.stream]
        text = text.replace(tmp + "/", "").replace(tmp, "<tmp>")
    text = text.replace(build + "/", "build/").replace(str(ROOT), "<checkout>")
    return render(sample, [line.rstrip() for line in text.splitlines()])


def numbers(spec):
    wanted = set()
    for item in spec.split(","):
        a, _, b = item.partition("-")
        wanted.update(range(int(a), int(b or a) + 1))
    return wanted


def keep_fields(spec, line):
    wanted = numbers(spec)
    fields = line.split(",")
    kept = [f for n, f in enumerate(fields, 1) if n in wanted]
    return ",".join(kept + (["..."] if len(kept) < len(fields) else []))


def render(sample, out):
    kept = list(enumerate(out))
    for name, arg in sample.filters:
        if name == "lines":
            kept = [(i, t) for i, t in kept if i + 1 in numbers(arg)]
        elif name == "fields":
            kept = [(i, keep_fields(arg, t)) for i, t in kept]
        elif name == "grep":
            kept = [(i, t) for i, t in kept if arg.search(t)]
        elif name == "head":
            kept = kept[:arg]
        elif name == "tail":
            kept = kept[-arg:] if arg else []
    if not kept:
        raise SampleError(f"{sample.where}: the filters leave no line of the output")

    def gap(first, last):  # a "..." line indented like the first non-blank line left out
        left_out = [t for t in out[first:last] if t.strip()] or [""]
        return " " * (len(left_out[0]) - len(left_out[0].lstrip())) + "..."

    block = []
    if kept[0][0] > 0:
        block.append(gap(0, kept[0][0]))
    for k, (i, t) in enumerate(kept):
        if k and i != kept[k - 1][0] + 1:
            block.append(gap(kept[k - 1][0] + 1, i))
        block.append(t)
    if kept[-1][0] < len(out) - 1:
        block.append(gap(kept[-1][0] + 1, len(out)))
    return block


# -- check and write ----------------------------------------------------------
def process(files, kernbench, write, out=sys.stdout):
    """Returns (drifted, errors, skipped, blocks)."""
    drifted = errors = skipped = blocks = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        lines = text.split("\n")
        try:
            samples = find_samples(path, lines)
        except SampleError as e:
            print(f"error: {e}", file=out)
            errors += 1
            continue
        changed = False
        for s in reversed(samples):  # bottom up: rewriting keeps earlier indices valid
            blocks += 1
            missing = [p for p in s.needs if not (ROOT / p.replace("{build}", str(
                Path(kernbench).resolve().parent))).exists()]
            if s.skip or missing:
                why = s.skip or f"{missing[0]} does not exist"
                print(f"{s.where}: skipped ({why})", file=out)
                skipped += 1
                continue
            try:
                got = run_sample(s, kernbench)
            except SampleError as e:
                print(f"error: {e}", file=out)
                errors += 1
                continue
            have = lines[s.body_start:s.body_end]
            if [mask(t.rstrip()) for t in have] == [mask(t) for t in got]:
                continue
            drifted += 1
            if write:
                lines[s.body_start:s.body_end] = got
                changed = True
                print(f"{s.where}: rewritten from `{s.spec}`", file=out)
            else:
                diff = difflib.unified_diff(
                    [mask(t.rstrip()) for t in have], [mask(t) for t in got],
                    fromfile=f"{s.where} (the doc)", tofile=f"{s.spec} (the binary)",
                    lineterm="")
                print("\n".join(diff), file=out)
        if changed:
            path.write_text("\n".join(lines), encoding="utf-8")
    return drifted, errors, skipped, blocks


# -- self-test: the checker must fail on a wrong block --------------------------
SELF_TEST_DOC = """# self-test

<!-- sample: kernbench run --M 128 --K 128 --N 128 --no-verify | lines 7-8 -->
```
```

<!-- sample: kernbench run --M 128 --K 128 --N 128 --no-verify | grep ^engine: -->
```
```

<!-- sample: kernbench run --no-such-option | stderr | exit 2 | head 1 -->
```
```
"""


def self_test(kernbench):
    failures = []

    def expect(what, ok):
        print(f"{'ok  ' if ok else 'FAIL'} {what}")
        if not ok:
            failures.append(what)

    def checker(*args):
        r = subprocess.run([sys.executable, __file__, "--kernbench", kernbench, *args],
                           capture_output=True, text=True)
        return r.returncode, r.stdout + r.stderr

    with tempfile.TemporaryDirectory(prefix="kb-doc-selftest-") as tmp:
        doc = Path(tmp) / "doc.md"
        doc.write_text(SELF_TEST_DOC, encoding="utf-8")
        rc, log = checker("--write", str(doc))
        written = doc.read_text(encoding="utf-8")
        expect("--write fills empty blocks from real runs", rc == 0 and re.search(
            r"```\n\.\.\.\nsimulated time: \d+ ns\nkernel latency: .*\n\.\.\.\n```", written)
            and re.search(r"\nengine: \d+ events in [\d.]+ s wall", written)
            and "--no-such-option\n" in written)
        rc, log = checker("--check", str(doc))
        expect("--check passes the blocks --write made", rc == 0)

        drifted = re.sub(r"simulated time: (\d+)",
                         lambda m: f"simulated time: {int(m.group(1)) + 1}", written)
        doc.write_text(drifted, encoding="utf-8")
        rc, log = checker("--check", str(doc))
        expect("--check fails, exit 1, when a number drifts", rc == 1)
        expect("... with a unified diff naming the file and the marker's line",
               f"--- {doc}:3 (the doc)" in log and re.search(r"\n-simulated time: \d+ ns", log)
               and re.search(r"\n\+simulated time: \d+ ns", log))
        rc, log = checker("--write", str(doc))
        expect("--write repairs the drifted block", rc == 0 and doc.read_text() == written)

        doc.write_text(re.sub(r"[\d.]+ s wall \([\d.]+ events/s\)",
                              "123.456 s wall (7 events/s)", written), encoding="utf-8")
        rc, log = checker("--check", str(doc))
        expect("--check ignores wall time and events/s", rc == 0)
        rc, log = checker("--write", str(doc))
        expect("--write leaves a block that differs only in volatile text",
               rc == 0 and "123.456 s wall" in doc.read_text())

        doc.write_text(written.replace("| head 1", "| heads 1"), encoding="utf-8")
        rc, log = checker("--check", str(doc))
        expect("an unknown filter is an error (exit 2) naming it",
               rc == 2 and "unknown or incomplete filter 'heads 1'" in log)
        doc.write_text(written.replace("| exit 2 ", ""), encoding="utf-8")
        rc, log = checker("--check", str(doc))
        expect("a command with another exit status is an error (exit 2)",
               rc == 2 and "exit 2, expected 0" in log)
    print(f"self-test: {'failed: ' + '; '.join(failures) if failures else 'passed'}")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description="Regenerate or check the output samples "
                                 "in README.md and docs/*.md (see this file's docstring).")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 if a block drifted")
    mode.add_argument("--write", action="store_true", help="rewrite the drifted blocks")
    mode.add_argument("--self-test", action="store_true", help="check the checker")
    ap.add_argument("--kernbench", default=str(ROOT / "build" / "kernbench"),
                    help="the binary to run (default: build/kernbench)")
    ap.add_argument("files", nargs="*", type=Path,
                    help="markdown files (default: README.md docs/*.md)")
    args = ap.parse_args()
    if not os.access(args.kernbench, os.X_OK):
        print(f"doc_samples: no kernbench binary at {args.kernbench} (give --kernbench)",
              file=sys.stderr)
        return 2
    if args.self_test:
        return self_test(args.kernbench)
    files = args.files or [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    start = time.monotonic()
    drifted, errors, skipped, blocks = process(files, args.kernbench, args.write)
    verb = "rewritten" if args.write else "drifted"
    print(f"doc_samples: {blocks} block(s) in {len(files)} file(s), {drifted} {verb}, "
          f"{skipped} skipped, {errors} error(s), {time.monotonic() - start:.1f} s")
    if errors:
        return 2
    if drifted and not args.write:
        print("doc_samples: after a change that moves numbers, run "
              "`scripts/doc_samples.py --write` and review the diff")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
