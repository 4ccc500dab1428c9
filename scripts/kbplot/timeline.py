"""trace_timeline.py: a kernbench Chrome/Perfetto trace (`run --trace X.json`
or `.json.gz`, `trace convert`) as a picture: one row per unit lane, a bar
per stage coloured by its type, time in µs. For a page or a report; the
trace itself is for Perfetto."""
import argparse
import fnmatch
import gzip
import json
import os
import re

from .cli import FORMATS, die, import_pyplot, save

# The stage types in pipeline order (docs/results-schema.md), then the
# kernel's own slices; colours fixed so that pictures compare.
KINDS = [("dma_read", "#1f77b4"), ("fetch", "#17becf"), ("gemm", "#d62728"),
         ("math", "#9467bd"), ("store", "#bcbd22"), ("dma_write", "#2ca02c"),
         ("kernel", "#c7c7c7"), ("wait", "#ff7f0e"), ("load", "#8c564b")]
COLOURS = dict(KINDS)


def kind_of(name):
    """A slice's stage type from its name ("gemm c1 t3" -> gemm)."""
    word = name.split(" ", 1)[0]
    if word in COLOURS:
        return word
    return "wait" if word.startswith("wait") else "kernel"


def natural(s):
    """Sort key: pe10 after pe9."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def us(text, who):
    """'10us', '2.5ns', '1ms', '0' -> µs."""
    m = re.fullmatch(r"\s*([0-9.]+)\s*(ps|ns|us|µs|ms|s)?\s*", text)
    if not m:
        die(who, 2, f"--window: '{text}' is not a time (e.g. 10us, 500ns)")
    scale = {"ps": 1e-6, "ns": 1e-3, "us": 1, "µs": 1, "ms": 1e3, "s": 1e6, None: 1}
    return float(m.group(1)) * scale[m.group(2)]


def read_trace(path, who):
    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        die(who, 2, f"{path}: no such file")
    except (OSError, ValueError, EOFError) as e:
        die(who, 2, f"{path}: not a Chrome/Perfetto JSON trace ({e}); a Cap'n Proto trace "
                    "needs `kernbench trace convert` first")
    events = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(events, list):
        die(who, 2, f"{path}: JSON without traceEvents: not a kernbench trace")
    return events


def slices_of(events):
    """{track label: [(start µs, end µs, kind)]}: the B/E pairs of each
    (pid, tid), named process.thread (sip0.cube0.pe0.pe_dma/read)."""
    procs, threads, open_, out = {}, {}, {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            procs[e["pid"]] = e["args"]["name"]
        elif e.get("ph") == "M" and e.get("name") == "thread_name":
            threads[(e["pid"], e["tid"])] = e["args"]["name"]
    for e in events:
        ph, key = e.get("ph"), (e.get("pid"), e.get("tid"))
        if ph == "B":
            open_.setdefault(key, []).append((float(e["ts"]), e.get("name", "")))
        elif ph == "E" and open_.get(key):
            start, name = open_[key].pop()
            out.setdefault(key, []).append((start, float(e["ts"]), kind_of(name)))
        elif ph == "X":
            start = float(e["ts"])
            out.setdefault(key, []).append((start, start + float(e.get("dur", 0)),
                                            kind_of(e.get("name", ""))))
    named = {}
    for key, spans in out.items():
        pid, tid = key
        label = f"{procs.get(pid, pid)}.{threads.get(key, tid)}"
        named[label] = spans
    return named


def main(argv):
    p = argparse.ArgumentParser(
        prog="trace_timeline.py",
        description="Draw a kernbench Chrome/Perfetto trace (.json or .json.gz) as a timeline: "
                    "one row per unit lane, one bar per stage coloured by its type.",
        epilog="OUT: .png (300 dpi), .svg (text as text) or .pdf. Exit status: 0 drawn, "
               "1 the file could not be written, 2 bad input, 3 matplotlib missing.")
    p.add_argument("trace", metavar="TRACE")
    p.add_argument("out", metavar="OUT")
    p.add_argument("--tracks", action="append", default=[], metavar="GLOB,...",
                   help="only the rows whose label (node/lane, e.g. sip0.cube0.pe0.pe_dma/read) "
                        "matches one of these patterns (repeatable; default: every row)")
    p.add_argument("--window", metavar="T0:T1",
                   help="only this span of simulated time, e.g. 0us:10us (default: all)")
    p.add_argument("--title", help="the figure's title (default: the trace's file name)")
    args = p.parse_args(argv[1:])
    who = "trace_timeline.py"
    ext = os.path.splitext(args.out)[1][1:].lower()
    if ext not in FORMATS:
        die(who, 2, f"{args.out}: give a .png, .svg or .pdf file")
    tracks = read_trace(args.trace, who)
    rows = slices_of(tracks)
    globs = [g for arg in args.tracks for g in arg.split(",") if g]
    if globs:
        rows = {k: v for k, v in rows.items() if any(fnmatch.fnmatchcase(k, g) for g in globs)}
    lo, hi = 0.0, None
    if args.window:
        if ":" not in args.window:
            die(who, 2, f"--window {args.window}: expected T0:T1, e.g. 0us:10us")
        a, b = args.window.split(":", 1)
        lo = us(a, who) if a.strip() else 0.0
        hi = us(b, who) if b.strip() else None
        if hi is not None and hi <= lo:
            die(who, 2, f"--window {args.window}: T1 must be after T0")
    if not rows:
        die(who, 2, f"{args.trace}: no stage slices{' on the rows asked for' if globs else ''}")
    if hi is None:
        hi = max(end for spans in rows.values() for _, end, _ in spans)
    labels = sorted(rows, key=natural)
    plt = import_pyplot(who)
    fig, ax = plt.subplots(figsize=(10, max(2.0, 0.28 * len(labels) + 1.2)))
    seen = set()
    for y, label in enumerate(labels):
        for kind in COLOURS:
            bars = [(max(s, lo), min(e, hi) - max(s, lo)) for s, e, k in rows[label]
                    if k == kind and e > lo and s < hi]
            if bars:
                ax.broken_barh(bars, (y - 0.4, 0.8), facecolors=COLOURS[kind], edgecolors="white",
                               linewidth=0.3)
                seen.add(kind)
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=6)
    ax.invert_yaxis()
    ax.set_xlim(lo, hi)
    ax.set_xlabel("simulated time (µs)")
    ax.set_title(args.title or os.path.basename(args.trace), fontsize=10)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for k, c in KINDS if k in seen]
    ax.legend(handles, [k for k, _ in KINDS if k in seen], loc="upper left",
              bbox_to_anchor=(1.01, 1), fontsize=7, frameon=False, title="stage",
              title_fontsize=7)
    fig.tight_layout()
    save(who, fig, args.out)
    return 0
