#!/usr/bin/env python3
"""The same 64-point sweep from Python (kernbench.sweep, in one process) and
from the CLI (kernbench sweep, a process per point), interleaved, R times
each; prints each side's median wall time and their ratio (issue 33's goal:
Python within 1.1x of the CLI).

    PYTHONPATH=build/python python3 bench/python_sweep.py            # R=5
    R=3 JOBS=2 KB_BUILD_DIR=build python3 bench/python_sweep.py

Both sides are timed as whole processes (python3 with the import, and
kernbench sweep), the same points, the same --jobs (default: the number of
cores, the CLI's default). The Python side also reports the time of the
sweep() call alone, and runs once more without keeping each point's JSON
(results=False: the CLI's sweep keeps only its CSV row).

The sweep: M in {128, 256, 384, 512} x HBM bandwidth in {64, 128, 256, 512}
GB/s x MAC rows in {16, 32, 64, 128}, K = N = 256, on the default machine.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, os.environ.get("KB_BUILD_DIR", "build"))
EXE = os.path.join(BUILD, "kernbench")
R = int(os.environ.get("R", "5"))
JOBS = int(os.environ.get("JOBS", str(os.cpu_count() or 1)))
PARAMS = {
    "M": [128, 256, 384, 512],
    "cube.hbm.bandwidth_gbps": [64, 128, 256, 512],
    "cube.pe_template.pe_gemm.mac_rows": [16, 32, 64, 128],
}
BASE = ["--K", "256", "--N", "256"]

CHILD = """
import sys, time, kernbench
t0 = time.perf_counter()
s = kernbench.sweep({params!r}, jobs={jobs}, results={results}, K=256, N=256)
t = time.perf_counter() - t0
assert len(s) == 64 and s.ok, s
print(t)
"""


def python_side(results):
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"))
    code = CHILD.format(params=PARAMS, jobs=JOBS, results=results)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True).stdout
    return time.perf_counter() - t0, float(out.strip().splitlines()[-1])


def cli_side(folder):
    args = [EXE, "sweep", "--quiet", "--jobs", str(JOBS), "--csv", os.path.join(folder, "s.csv")]
    for k, v in PARAMS.items():
        args += ["--param", f"{k}=" + ",".join(map(str, v))]
    t0 = time.perf_counter()
    subprocess.run([*args, "--", *BASE], check=True, capture_output=True)
    return time.perf_counter() - t0


def main():
    if not os.access(EXE, os.X_OK):
        sys.exit(f"no {EXE}: build it (and _kernbench) first")
    cli_s, py_s, py_call_s, py_lean_s = [], [], [], []
    with tempfile.TemporaryDirectory(prefix="kb-bench-") as folder:
        python_side(True)  # warm the page cache for both binaries
        cli_side(folder)
        for _ in range(R):
            cli_s.append(cli_side(folder))
            whole, call = python_side(True)
            py_s.append(whole)
            py_call_s.append(call)
            py_lean_s.append(python_side(False)[0])
    med = statistics.median
    print(f"64-point sweep, --jobs {JOBS}, R={R} (medians; seconds)")
    print(f"  CLI    kernbench sweep                      {med(cli_s):7.3f}  {sorted(cli_s)}")
    print(f"  Python kernbench.sweep (process)            {med(py_s):7.3f}")
    print(f"  Python kernbench.sweep (the call alone)     {med(py_call_s):7.3f}")
    print(f"  Python kernbench.sweep(results=False)       {med(py_lean_s):7.3f}")
    print(f"ratio Python/CLI: {med(py_s) / med(cli_s):.3f} (goal: <= 1.1); "
          f"results=False: {med(py_lean_s) / med(cli_s):.3f}")


if __name__ == "__main__":
    main()
