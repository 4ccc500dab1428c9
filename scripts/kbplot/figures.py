"""The figures: a metric against a parameter, and the roofline.

A spec is METRIC:PARAM[:SERIES] (one line per value of SERIES, and per
combination of the parameters neither names) or roofline[:PARAM[:SERIES]]
(achieved FLOP/s against FLOP per HBM byte, under the machine's compute roof
and bandwidth slope; PARAM labels and joins the points).
"""
import math
import textwrap

from .results import BadInput, check_column, check_param
from .units import (PEAK_OF, axis_label, key_label, number, plain, scale, short_key,
                    value_label)


class Spec:
    def __init__(self, text):
        parts = text.split(":")
        if len(parts) > 3 or not all(parts) or (len(parts) == 1 and parts[0] != "roofline"):
            raise BadInput(f"--plot {text}: expected METRIC:PARAM, METRIC:PARAM:SERIES or "
                           "roofline[:PARAM[:SERIES]]")
        self.text = text
        self.metric = parts[0]
        self.param = parts[1] if len(parts) > 1 else None
        self.series = parts[2] if len(parts) > 2 else None
        if self.series is not None and self.series == self.param:
            raise BadInput(f"--plot {text}: the series must be another parameter than {self.param}")

    def roofline(self):
        return self.metric == "roofline"

    def name(self):
        """For file names: achieved_flop_per_s-M-tile."""
        return self.text.replace(":", "-").replace("/", "_")

    def check(self, res):
        if self.roofline():
            for c in ("flops", "hbm_bytes", "achieved_flop_per_s"):
                check_column(res, c, "roofline: column")
        else:
            check_column(res, self.metric)
        for key, what in ((self.param, "parameter"), (self.series, "series")):
            if key is not None:
                check_param(res, key, what)


def default_spec(res):
    """achieved_flop_per_s against the first parameter, by the second."""
    if not res.params:
        raise BadInput(f"nothing varies between the runs of {res.names()}: give --plot "
                       "METRIC:PARAM (or roofline)")
    return Spec(":".join(["achieved_flop_per_s"] + res.params[:2]))


def caption(res):
    """The parameters that stayed fixed, then the machine, wrapped to the figure."""
    fixed = ", ".join(f"{k}={v}" for k, v in res.fixed())
    machine = "   ".join(t for t in (res.machine(), res.build()) if t)
    parts = [f"fixed: {fixed}" if fixed else "", f"machine: {machine}" if machine else ""]
    return "\n".join(textwrap.fill(p, 100, subsequent_indent="    ") for p in parts if p)


def _x_of(rows, param):
    """Each distinct value of param in plot order, and whether they are numbers."""
    values = list(dict.fromkeys(r.get(param, "") for r in rows))
    numeric = all(number(v) is not None for v in values)
    return (sorted(values, key=float) if numeric else values), numeric


def _groups(res, rows, spec):
    """label -> rows: one line per series value and combination of the other parameters."""
    others = [p for p in res.params if p not in (spec.param, spec.series)
              and len({r.get(p, "") for r in rows}) > 1]
    keys = ([spec.series] if spec.series else []) + others
    order = {}
    for k in keys:
        vs, numeric = _x_of(rows, k)
        order[k] = {v: i for i, v in enumerate(vs)}
    groups = {}
    for r in sorted(rows, key=lambda r: [order[k][r.get(k, "")] for k in keys]):
        parts = [value_label(spec.series, r.get(spec.series, ""))] if spec.series else []
        parts += [f"{short_key(p)} {value_label(p, r.get(p, ''))}" for p in others]
        groups.setdefault(", ".join(parts), []).append(r)
    return groups


def _finish(plt, fig, ax, title, res, legend_title=None):
    """Title, legends beside the axes (the series, then the machine's peaks and
    roofs: artists whose label starts with "peak" or "roof"), the caption below."""
    ax.set_title(textwrap.fill(title, 70), fontsize="medium")
    ax.grid(True, which="major", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    machine = [i for i, l in enumerate(labels) if l.startswith(("peak", "roof", "100%"))]
    series = [i for i in range(len(labels)) if i not in machine]
    if series and machine:  # a blank line between the two
        handles.append(ax.plot([], [], ls="none")[0])
        labels.append(" ")
        series.append(len(labels) - 1)
    order = series + machine
    if order:  # one legend (tight_layout makes room for it), beside the axes
        ax.legend([handles[i] for i in order], [labels[i] for i in order],
                  title=legend_title if series else None, fontsize="small",
                  title_fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1),
                  borderaxespad=0, frameon=False)
    text = caption(res)
    lines = text.count("\n") + 1 if text else 0
    bottom = (0.12 + 0.18 * lines) / fig.get_figheight()
    fig.tight_layout(rect=(0, bottom, 1, 1))
    if text:
        fig.text(0.01, 0.1 / fig.get_figheight(), text, fontsize="small", color="0.25",
                 ha="left", va="bottom")


def _plain_ticks(ax, plt, axis):
    fmt = plt.FuncFormatter(lambda v, _: plain(v))
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_formatter(fmt)
    target.set_minor_formatter(plt.NullFormatter())


def metric_figure(plt, res, spec):
    rows = [r for r in res.ok if number(r.get(spec.metric)) is not None]
    if not rows:
        raise BadInput(f"no successful point with a {spec.metric} in {res.names()} to plot")
    words, unit, div = scale(spec.metric, [number(r[spec.metric]) for r in rows])
    xs_all, numeric = _x_of(rows, spec.param)
    position = (lambda v: float(v)) if numeric else (lambda v: xs_all.index(v))
    fig, ax = plt.subplots(figsize=(7, 4.8))
    peak_col = PEAK_OF.get(spec.metric)
    peaks = {number(r.get(peak_col)) for r in rows} - {None} if peak_col in res.columns else set()
    top = 0
    groups = _groups(res, rows, spec)
    for label, rs in groups.items():
        rs = sorted(rs, key=lambda r: position(r.get(spec.param, "")))
        xs = [position(r.get(spec.param, "")) for r in rs]
        ys = [number(r[spec.metric]) / div for r in rs]
        line, = ax.plot(xs, ys, marker="o", label=label or None)
        top = max([top] + ys)
        if len(peaks) > 1:
            ps = [number(r.get(peak_col)) for r in rs]
            if None not in ps:
                ax.plot(xs, [p / div for p in ps], ls="--", lw=1, color=line.get_color())
                top = max([top] + [p / div for p in ps])
    if len(peaks) == 1:
        peak = next(iter(peaks)) / div
        ax.axhline(peak, ls="--", lw=1, color="0.3", label=f"peak {plain(peak)} {unit}")
        top = max(top, peak)
    elif len(peaks) > 1:
        ax.plot([], [], ls="--", lw=1, color="0.3", label="peak of its machine (dashed)")
    elif unit == "%":
        ax.axhline(100, ls="--", lw=1, color="0.3", label="100%")
        top = max(top, 100)
    if numeric:
        xv = [float(v) for v in xs_all]
        if min(xv) > 0 and max(xv) / min(xv) >= 8:
            ax.set_xscale("log", base=2)
            ax.xaxis.set_minor_formatter(plt.NullFormatter())
        ax.set_xticks(xv)
    else:
        ax.set_xticks(range(len(xs_all)))
    ax.set_xticklabels(xs_all)
    ax.set_ylim(bottom=0, top=top * 1.1 if top > 0 else None)
    ax.ticklabel_format(axis="y", style="plain", useOffset=False)
    ax.set_xlabel(key_label(spec.param))
    ax.set_ylabel(axis_label(words, unit))
    title = f"{words} vs {key_parts_words(spec.param)}"
    if spec.series:
        title += f", one line per {key_parts_words(spec.series)}"
    _finish(plt, fig, ax, title, res, key_label(spec.series) if spec.series else None)
    return fig


def key_parts_words(key):
    """A key in a title: its last two parts, no unit."""
    return short_key(key)


def roofline_figure(plt, res, spec):
    rows = [r for r in res.ok if (number(r.get("hbm_bytes")) or 0) > 0
            and number(r.get("flops")) and number(r.get("achieved_flop_per_s")) is not None]
    if not rows:
        raise BadInput(f"roofline: no successful run with HBM traffic in {res.names()} "
                       "(hbm_bytes is 0 or missing)")
    fig, ax = plt.subplots(figsize=(7, 4.8))
    ai = lambda r: number(r["flops"]) / number(r["hbm_bytes"])  # noqa: E731
    tf = lambda r: number(r["achieved_flop_per_s"]) / 1e12  # noqa: E731
    roofs = sorted({(number(r.get("peak_flop_per_s")), number(r.get("peak_hbm_bytes_per_s")))
                    for r in rows} - {(None, None)}, key=lambda p: (p[0] or 0, p[1] or 0))
    roofs = [(f, b) for f, b in roofs if f and b]
    lo = min([ai(r) for r in rows] + [f / b for f, b in roofs]) / 2
    hi = max([ai(r) for r in rows] + [f / b for f, b in roofs]) * 3
    grid = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    ys = [tf(r) for r in rows]
    for i, (f, b) in enumerate(roofs):
        ax.plot(grid, [min(f, x * b) / 1e12 for x in grid], ls="--", lw=1,
                color=str(0.15 + 0.5 * i / max(1, len(roofs) - 1)),
                label=f"roof: {plain(f / 1e12)} TFLOP/s, {plain(b / 1e9)} GB/s")
        ys.append(f / 1e12)
    groups = _groups(res, rows, spec) if (spec.param or spec.series) else {"": rows}
    # Points are labelled with PARAM, else the first parameter that varies.
    names = spec.param or next((p for p in res.params if p != spec.series
                                and len({r.get(p, "") for r in rows}) > 1), None)
    mid_x2 = min(ai(r) for r in rows) * max(ai(r) for r in rows)  # the middle, squared
    for label, rs in groups.items():
        if spec.param:
            xs_all, numeric = _x_of(rs, spec.param)
            rs = sorted(rs, key=lambda r: xs_all.index(r.get(spec.param, "")))
        ax.plot([ai(r) for r in rs], [tf(r) for r in rs], marker="o",
                ls="-" if spec.param else "none", label=label or None)
        if names:  # points that fall on one another share one label
            spots = []  # (x, y, values): points less than 1/10 octave apart are one
            for r in rs:
                near = [s for s in spots if abs(math.log2(s[0] / ai(r))) < 0.1
                        and abs(math.log2(s[1] / tf(r))) < 0.1]
                (near[0] if near else spots.append((ai(r), tf(r), [])) or spots[-1])[2].append(
                    r.get(names, ""))
            # Beside the points: left of a group left of the middle (when
            # there are several), else right.
            xs = sorted(ai(r) for r in rs)
            right = len(groups) == 1 or xs[len(xs) // 2] ** 2 > mid_x2
            for x, y, values in spots:
                ax.annotate(value_label(names, ", ".join(values)), (x, y),
                            textcoords="offset points", xytext=(6 if right else -6, 0),
                            ha="left" if right else "right", va="center", fontsize="x-small")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlim(lo, hi)
    ymin = min(y for y in ys if y > 0)
    ax.set_ylim(ymin / 3, max(ys) * 2)
    _plain_ticks(ax, plt, "x")
    _plain_ticks(ax, plt, "y")
    ax.set_xlabel(axis_label(*scale("arithmetic_intensity", [])[:2]))
    ax.set_ylabel(axis_label(*scale("achieved_flop_per_s", [])[:2]))
    title = "roofline"
    if spec.series:
        title += f", one line per {key_parts_words(spec.series)}"
    if names:
        title += f", points labelled with {key_parts_words(names)}"
    _finish(plt, fig, ax, title, res, key_label(spec.series) if spec.series else None)
    return fig


def figure(plt, res, spec):
    return roofline_figure(plt, res, spec) if spec.roofline() else metric_figure(plt, res, spec)
