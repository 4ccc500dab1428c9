#!/usr/bin/env python3
"""Draw a kernbench Chrome/Perfetto trace as a timeline picture.

Usage: trace_timeline.py TRACE.json[.gz] OUT.(png|svg|pdf) [--tracks GLOB,...]
                         [--window T0:T1] [--title TEXT]

One row per unit lane (sip0.cube0.pe0.pe_dma/read, ...), one bar per stage
coloured by its type (dma_read, fetch, gemm, math, store, dma_write; the
kernel's own slices grey, its waits orange), simulated time in µs. Run by a
Python without matplotlib, it runs itself again with /usr/bin/python3 if
that has it. Exit status: 0 drawn, 1 the file could not be written, 2 bad
input, 3 matplotlib missing. The code is kbplot/timeline.py beside this file.
"""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

from kbplot.timeline import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv))
