#!/usr/bin/env python3
"""Plot kernbench results: sweep CSVs, `run --csv` files, `run --json` results.

Usage: plot_sweep.py RESULT... [--plot SPEC]... [--out FILE]...

SPEC is METRIC:PARAM (METRIC, a column such as achieved_flop_per_s or
max_latency_ps, against PARAM, a swept parameter; one line per combination
of the other parameters), METRIC:PARAM:SERIES (one line per value of the
parameter SERIES) or roofline[:PARAM[:SERIES]] (achieved FLOP/s against
FLOP per HBM byte under the machine's roofs). Rows whose status is not "ok"
are left out. `kernbench sweep --plot` and `kernbench plot` run it.

Axes are in words and human units (µs, TFLOP/s, GB/s, %), never with an
offset or an exponent; achieved FLOP/s and HBM bandwidth have the machine's
peak as a dashed line; the title says what is plotted, the caption the
parameters that stayed fixed and the machine. FILE's extension picks the
format: .png (300 dpi), .svg (text as text) or .pdf; another name is a
prefix of a .png and an .svg. Run by a Python without matplotlib, it runs
itself again with /usr/bin/python3 if that has it.
Exit status: 0 plotted, 1 a file could not be written, 2 bad input,
3 matplotlib missing. The code is the kbplot package beside this file.
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree or an installation
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

from kbplot.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv))
