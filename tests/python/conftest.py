"""Helpers of the Python module's tests: the kernbench executable's results
for the same command lines, to compare with (KB_KERNBENCH: its path; the
ctest that runs these sets it and PYTHONPATH, python/CMakeLists.txt)."""

import csv
import json
import os
import subprocess
import tempfile

import pytest

import kernbench

# What legitimately differs between a Python run and a CLI run of the same
# command line: how it was invoked, and wall-clock figures.
VARYING_JSON = {"invocation", "timings"}
VARYING_CSV = {"wall_s", "events_per_s", "process_wall_s", "command"}


def kernbench_exe():
    exe = os.environ.get("KB_KERNBENCH")
    if not exe:  # beside the package in a build tree: build/python/kernbench/..
        here = os.path.dirname(os.path.dirname(os.path.abspath(kernbench.__file__)))
        exe = os.path.join(os.path.dirname(here), "kernbench")
    if not os.access(exe, os.X_OK):
        pytest.skip(f"no kernbench executable at {exe} (set KB_KERNBENCH)")
    return exe


class CliRun:
    def __init__(self, proc, doc):
        self.exit_code = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr
        self.json = doc


def cli(args, want_json=True):
    """``kernbench ARGS`` as a process (its --json read back when asked)."""
    with tempfile.TemporaryDirectory(prefix="kb-pytest-") as folder:
        path = os.path.join(folder, "cli.json")
        full = [kernbench_exe(), *args] + (["--json", path] if want_json else [])
        proc = subprocess.run(full, capture_output=True, text=True, timeout=120)
        doc = None
        if want_json and os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        return CliRun(proc, doc)


def cli_sweep(params, base, jobs=2):
    """``kernbench sweep``'s CSV rows (dicts of strings)."""
    with tempfile.TemporaryDirectory(prefix="kb-pytest-") as folder:
        path = os.path.join(folder, "sweep.csv")
        args = [kernbench_exe(), "sweep", "--quiet", "--jobs", str(jobs), "--csv", path]
        for p in params:
            args += ["--param", p]
        proc = subprocess.run([*args, "--", *base], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        with open(path, encoding="utf-8", newline="") as f:
            return list(csv.DictReader(f))


def comparable(doc, same_topology=True):
    """A result's JSON less what differs between processes."""
    out = {k: v for k, v in doc.items() if k not in VARYING_JSON}
    if not same_topology:
        out.pop("topology", None)
    return out


def without_wall(text):
    """A text report less its wall-clock lines."""
    return [ln for ln in text.splitlines() if " wall" not in ln and "events/s" not in ln]


@pytest.fixture
def tmp_folder():
    with tempfile.TemporaryDirectory(prefix="kb-pytest-") as folder:
        yield folder
