#!/usr/bin/env python3
"""Plot one metric of a `kernbench sweep` CSV against one swept parameter.

Usage: plot_sweep.py SWEEP.csv METRIC PARAM OUT_PREFIX

Writes OUT_PREFIX.png and OUT_PREFIX.svg with matplotlib: METRIC (a column
of the CSV, e.g. achieved_flop_per_s) on y, PARAM (a swept parameter) on x,
one line per combination of the other swept parameters. Rows whose status
is not "ok" are left out. `kernbench sweep --plot METRIC:PARAM` runs it.

Axes are labelled in words and units (latency in ns or us, rates in
TFLOP/s, GB/s or M events/s, utilisation in %), never with a matplotlib
offset; the title says the metric and the parameter, the subtitle the
problem and the machine (the CSV's program, topology and PEs when the
sweep does not vary them). PNG at 300 dpi, SVG. Run directly by a Python
without matplotlib, it runs itself again with the system's /usr/bin/python3
if that has it.
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


# Known columns: (words, unit, divisor). Others are named from the column.
COLUMNS = {
    "achieved_flop_per_s": ("achieved compute", "TFLOP/s", 1e12),
    "peak_flop_per_s": ("peak compute", "TFLOP/s", 1e12),
    "achieved_hbm_bytes_per_s": ("achieved HBM bandwidth", "GB/s", 1e9),
    "peak_hbm_bytes_per_s": ("peak HBM bandwidth", "GB/s", 1e9),
    "flop_utilisation": ("compute utilisation", "%", 0.01),
    "hbm_utilisation": ("HBM utilisation", "%", 0.01),
    "busiest_utilisation_1": ("busiest unit's utilisation", "%", 0.01),
    "busiest_utilisation_2": ("second busiest unit's utilisation", "%", 0.01),
    "busiest_utilisation_3": ("third busiest unit's utilisation", "%", 0.01),
    "events_per_s": ("simulation speed", "M events/s", 1e6),
    "wall_s": ("wall time", "s", 1),
    "flops": ("work", "GFLOP", 1e9),
    "hbm_bytes": ("HBM traffic", "MB", 1e6),
}


def axis_of(column, values):
    """(label, divisor) for a column: words and a unit that fits its values."""
    if column in COLUMNS:
        words, unit, div = COLUMNS[column]
        return f"{words} ({unit})", div
    if column.endswith("_ps"):
        words = column[:-3].replace("_", " ")
        top = max((abs(v) for v in values), default=0)
        for unit, div in (("ms", 1e9), ("us", 1e6), ("ns", 1e3)):
            if top >= div * 10:
                return f"{words} ({unit})", div
        return f"{words} (ps)", 1
    return column.replace("_", " "), 1


KEY_UNITS = {"_gbps": "GB/s", "_ns": "ns", "_ps": "ps", "_cycles": "cycles", "_bytes": "B"}


def key_label(key):
    """A swept key as an axis label: its unit suffix as a unit."""
    for suffix, unit in KEY_UNITS.items():
        if key.endswith(suffix):
            return f"{key[: -len(suffix)]} ({unit})"
    return key


def subtitle(ok, swept):
    """What ran and on what, from the columns the sweep did not vary."""
    parts = []
    for column, fmt in (("program", "{}"), ("topology", "on {}"), ("pes", "{} PE(s)")):
        values = {r.get(column, "") for r in ok}
        if column in swept or len(values) != 1 or not next(iter(values)):
            continue
        value = next(iter(values))
        if column == "topology":
            value = os.path.basename(value)
        parts.append(fmt.format(value))
    return ", ".join(parts)


def import_pyplot(argv):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        plt.rcParams["svg.fonttype"] = "none"  # text stays text: editable, searchable
        return plt
    except ImportError:
        system = "/usr/bin/python3"
        if os.path.realpath(sys.executable) != os.path.realpath(system) and os.path.exists(system) \
                and not os.environ.get("KB_PLOT_REEXEC"):
            os.environ["KB_PLOT_REEXEC"] = "1"
            os.execv(system, [system, os.path.abspath(argv[0])] + argv[1:])
        die(3, "python3-matplotlib is not installed (Debian: apt-get install python3-matplotlib)")


def main(argv):
    if len(argv) != 5:
        die(2, "usage: plot_sweep.py SWEEP.csv METRIC PARAM OUT_PREFIX")
    path, metric, param, prefix = argv[1:]
    plt = import_pyplot(argv)
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
    y_label, y_div = axis_of(metric, [number(r[metric]) for r in ok])
    fig, ax = plt.subplots(figsize=(7, 4.5))
    categories = list(dict.fromkeys(r[param] for r in ok))
    for label, rs in series.items():
        if numeric_x:
            rs = sorted(rs, key=lambda r: number(r[param]))
            xs = [number(r[param]) for r in rs]
        else:
            xs = [categories.index(r[param]) for r in rs]
        ys = [number(r[metric]) / y_div for r in rs]
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
    ax.set_xlabel(key_label(param))
    ax.set_ylabel(y_label)
    ax.ticklabel_format(axis="y", style="plain", useOffset=False)
    title = f"{y_label.split(' (')[0]} vs {param}"
    sub = subtitle(ok, params)
    ax.set_title(f"{title}\n{sub}" if sub else title, fontsize="medium")
    ax.grid(True, alpha=0.3)
    if others:
        ax.legend(fontsize="small")
    fig.tight_layout()
    for ext in ("png", "svg"):
        # Complete files or none, as kernbench's own outputs: a temporary
        # name beside the target, renamed over it.
        tmp = f"{prefix}.{ext}.tmp.{os.getpid()}"
        try:
            fig.savefig(tmp, dpi=300, format=ext)
            os.replace(tmp, f"{prefix}.{ext}")
        except OSError as e:
            if os.path.exists(tmp):
                os.remove(tmp)
            die(1, f"cannot write {prefix}.{ext}: {e.strerror}")
    print(f"plot_sweep.py: wrote {prefix}.png and {prefix}.svg")


if __name__ == "__main__":
    main(sys.argv)
