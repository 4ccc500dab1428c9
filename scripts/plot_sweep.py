#!/usr/bin/env python3
"""Plot one metric of a `kernbench sweep` CSV against one swept parameter.

Usage: plot_sweep.py SWEEP.csv METRIC PARAM OUT_PREFIX

Writes OUT_PREFIX.png and OUT_PREFIX.svg with matplotlib: METRIC (a column
of the CSV, e.g. achieved_flop_per_s) on y, PARAM (a swept parameter) on x,
one line per combination of the other swept parameters. Rows whose status
is not "ok" are left out. `kernbench sweep --plot METRIC:PARAM` runs it.
Exit status: 0 plotted, 2 bad input, 3 matplotlib missing.
"""
import csv
import os
import sys


def die(code, msg):
    print(f"plot_sweep.py: {msg}", file=sys.stderr)
    sys.exit(code)


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def main(argv):
    if len(argv) != 5:
        die(2, "usage: plot_sweep.py SWEEP.csv METRIC PARAM OUT_PREFIX")
    path, metric, param, prefix = argv[1:]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        die(3, "python3-matplotlib is not installed (Debian: apt-get install python3-matplotlib)")
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
            header = rows and list(rows[0].keys()) or []
    except OSError as e:
        die(2, f"cannot read {path}: {e.strerror}")
    if "status" not in header:
        die(2, f"{path} is not a kernbench sweep CSV (no status column)")
    params = header[: header.index("status")]
    if param not in params:
        die(2, f"'{param}' is not a swept parameter of {path} (swept: {', '.join(params)})")
    if metric not in header:
        die(2, f"'{metric}' is not a column of {path}")
    ok = [r for r in rows if r["status"] == "ok" and number(r[metric]) is not None]
    if not ok:
        die(2, f"no successful point in {path} to plot")
    numeric_x = all(number(r[param]) is not None for r in ok)
    others = [p for p in params if p != param]
    series = {}
    for r in ok:
        label = ", ".join(f"{p}={r[p]}" for p in others)
        series.setdefault(label, []).append(r)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    categories = list(dict.fromkeys(r[param] for r in ok))
    for label, rs in series.items():
        if numeric_x:
            rs = sorted(rs, key=lambda r: number(r[param]))
            xs = [number(r[param]) for r in rs]
        else:
            xs = [categories.index(r[param]) for r in rs]
        ys = [number(r[metric]) for r in rs]
        ax.plot(xs, ys, marker="o", label=label or metric)
    if numeric_x:
        xs = [number(r[param]) for r in ok]
        if min(xs) > 0 and max(xs) / min(xs) >= 8:
            ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(set(xs)))
        ax.set_xticklabels([r for r in dict.fromkeys(
            r[param] for r in sorted(ok, key=lambda r: number(r[param])))])
    else:
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels(categories)
    ax.set_xlabel(param)
    ax.set_ylabel(metric)
    ax.set_title(f"{metric} vs {param}")
    ax.grid(True, alpha=0.3)
    if others:
        ax.legend(fontsize="small")
    fig.tight_layout()
    for ext in ("png", "svg"):
        # Complete files or none, as kernbench's own outputs: a temporary
        # name beside the target, renamed over it.
        tmp = f"{prefix}.{ext}.tmp.{os.getpid()}"
        try:
            fig.savefig(tmp, dpi=120, format=ext)
            os.replace(tmp, f"{prefix}.{ext}")
        except OSError as e:
            if os.path.exists(tmp):
                os.remove(tmp)
            die(1, f"cannot write {prefix}.{ext}: {e.strerror}")
    print(f"plot_sweep.py: wrote {prefix}.png and {prefix}.svg")


if __name__ == "__main__":
    main(sys.argv)
