#!/usr/bin/env python3
"""Check that a Chrome trace-event JSON file (kernbench's `--trace X.json`
or `.json.gz`, or `trace convert`) is one Perfetto draws whole.

    scripts/check_trace.py TRACE.json[.gz] [--max-errors N] [--quiet]

Each track is a (pid, tid). The checks, with Perfetto's JSON importer's
rules (events taken in time order, ties in file order):

- names:    every pid has a process_name and every track a thread_name;
- slices:   every B has its E on the same track (none left open, no E
            without a B), and slices on a track nest: none overlaps
            another partially;
- flows:    every flow start (`s`) and step (`t`) lies inside a slice open
            on its track at its time, every flow end (`f`) binds to the
            enclosing slice (`"bp":"e"`) and lies inside one; each flow id
            (with its category and name) has one start, then steps and at
            most one end, none before the start nor twice in a row on the
            same track and time;
- counters: a counter track's samples are in time order and numeric.

Prints what it counted and, per failed check, the first errors with the
track's names; exit 0 when every check passes, 1 when one fails, 2 when the
file cannot be read as a trace.
"""

import argparse
import gzip
import json
import sys
from collections import defaultdict


class Trace:
    def __init__(self, events):
        self.events = events
        self.process = {}
        self.thread = {}
        for e in events:
            if e.get("ph") == "M":
                name = e.get("args", {}).get("name")
                if e.get("name") == "process_name" and name:
                    self.process[e.get("pid")] = name
                elif e.get("name") == "thread_name" and name:
                    self.thread[(e.get("pid"), e.get("tid"))] = name

    def where(self, track):
        pid, tid = track
        return "{} / {} (pid {}, tid {})".format(
            self.process.get(pid, "?"), self.thread.get(track, "?"), pid, tid)


def ps(us):
    """A time in microseconds (kernbench writes picosecond precision) as an
    integer number of picoseconds, so ends and starts compare exactly."""
    return round(float(us) * 1e6)


def us(p):
    return "{:.6f} us".format(p / 1e6)


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        raise ValueError("no traceEvents list")
    return events


def check(trace, max_errors, allow_open=False):
    errors = defaultdict(list)  # per check: the first max_errors texts
    totals = defaultdict(int)   # per check: how many in all
    named = set()               # pids and tracks already said to lack a name

    def fail(kind, text):
        totals[kind] += 1
        if len(errors[kind]) < max_errors:
            errors[kind].append(text)

    counts = defaultdict(int)
    per_track = defaultdict(list)
    for i, e in enumerate(trace.events):
        ph = e.get("ph")
        counts[ph] += 1
        if ph == "M":
            continue
        pid = e.get("pid")
        if pid not in trace.process and pid not in named:
            named.add(pid)
            fail("names", "pid {} has no process_name".format(pid))
        if ph == "C":
            per_track[("C", pid, e.get("name"))].append((ps(e.get("ts", 0)), i, e))
            continue
        track = (pid, e.get("tid"))
        if track not in trace.thread and track not in named:
            named.add(track)
            fail("names", "track {} has no thread_name".format(trace.where(track)))
        per_track[track].append((ps(e.get("ts", 0)), i, e))

    flows = defaultdict(lambda: {"s": [], "t": [], "f": [], "at": []})
    slices = 0
    for track, evs in per_track.items():
        if track[0] == "C":  # in file order: a counter's samples go forward
            last = None
            for ts, _, e in evs:
                for k, v in e.get("args", {}).items():
                    if not isinstance(v, (int, float)):
                        fail("counters", "{} pid {} at {}: {} is not a number".format(
                            track[2], track[1], us(ts), k))
                if last is not None and ts < last:
                    fail("counters", "{} pid {}: sample at {} after {}".format(
                        track[2], track[1], us(ts), us(last)))
                last = ts
            continue
        evs.sort(key=lambda x: (x[0], x[1]))
        # Perfetto's stack of open slices: B opens until its E; an X (and a
        # thread instant, a slice of no duration) stays on it until a slice
        # begins at or after its end. Each entry: [begin, end or None].
        stack = []

        def close_before(ts):
            while stack and stack[-1][1] is not None and stack[-1][1] <= ts:
                stack.pop()

        def begin_x(ts, end, what):
            close_before(ts)
            if stack and stack[-1][1] is not None and end > stack[-1][1]:
                fail("slices", "{}: {} [{}, {}] overlaps [{}, {}] partially".format(
                    trace.where(track), what, us(ts), us(end), us(stack[-1][0]),
                    us(stack[-1][1])))
            stack.append([ts, end])

        for ts, _, e in evs:
            ph = e.get("ph")
            if ph == "B":
                close_before(ts)
                stack.append([ts, None])
            elif ph == "E":
                close_before(ts)
                while stack and stack[-1][1] is not None:  # an X outlasting the B
                    fail("slices", "{}: [{}, {}] overlaps the slice ending at {} partially".format(
                        trace.where(track), us(stack[-1][0]), us(stack[-1][1]), us(ts)))
                    stack.pop()
                if not stack:
                    fail("slices", "{}: E at {} without a B".format(trace.where(track), us(ts)))
                else:
                    stack.pop()
                    slices += 1
            elif ph == "X":
                begin_x(ts, ts + ps(e.get("dur", 0)), "X")
                slices += 1
            elif ph == "i" and e.get("s", "t") == "t":
                begin_x(ts, ts, "instant")
            elif ph in ("s", "t", "f"):
                fid = (e.get("cat"), e.get("id"), e.get("name"))
                if ph == "f":
                    flows[fid]["f"].append(ts)
                    if e.get("bp") != "e":
                        fail("flows", "{}: flow {} end at {} does not bind to its enclosing "
                             "slice (no \"bp\":\"e\")".format(trace.where(track), e.get("id"), us(ts)))
                else:
                    flows[fid][ph].append(ts)
                    if ph == "t" and flows[fid]["at"][-1:] == [(track, ts)]:
                        fail("flows", "{}: flow {} steps twice at {} (an arrow from its "
                             "slice to itself)".format(trace.where(track), e.get("id"), us(ts)))
                flows[fid]["at"].append((track, ts))
                top = stack[-1] if stack else None
                if top is None or not (top[0] <= ts and (top[1] is None or ts <= top[1])):
                    fail("flows", "{}: flow {} {} at {} ({}) lies in no slice".format(
                        trace.where(track), e.get("id"),
                        {"s": "start", "t": "step", "f": "end"}[ph], us(ts), e.get("name")))
        for b, end in stack:
            if end is None and not allow_open:
                fail("slices", "{}: B at {} has no E".format(trace.where(track), us(b)))

    for fid, se in flows.items():
        if len(se["s"]) != 1 or len(se["f"]) > 1 or len(se["t"]) + len(se["f"]) == 0:
            fail("flows", "flow {} has {} start(s), {} step(s) and {} end(s) (one start, "
                 "then steps and at most one end)".format(
                     fid[1], len(se["s"]), len(se["t"]), len(se["f"])))
        elif min(se["t"] + se["f"]) < se["s"][0]:
            fail("flows", "flow {} goes on at {} before it starts at {}".format(
                fid[1], us(min(se["t"] + se["f"])), us(se["s"][0])))
    return counts, slices, len(flows), errors, totals


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--max-errors", type=int, default=5,
                    help="errors shown per check (default 5)")
    ap.add_argument("--quiet", action="store_true", help="print only the errors")
    ap.add_argument("--window", action="store_true",
                    help="the trace was cut by --trace-window: slices may stay open at its end")
    args = ap.parse_args()
    try:
        trace = Trace(load(args.trace))
    except (OSError, ValueError, EOFError) as exc:
        print("check_trace: {}: not a trace-event JSON file: {}".format(args.trace, exc),
              file=sys.stderr)
        return 2
    try:
        counts, slices, flows, errors, totals = check(trace, args.max_errors, args.window)
    except (ValueError, TypeError, AttributeError) as exc:
        print("check_trace: {}: a malformed event: {}".format(args.trace, exc), file=sys.stderr)
        return 2
    if not args.quiet:
        print("{}: {} events, {} processes, {} tracks, {} slices, {} flows, {} counter samples"
              .format(args.trace, sum(counts.values()), len(trace.process), len(trace.thread),
                      slices, flows, counts.get("C", 0)))
    failed = sorted(errors)
    for kind in failed:
        print("FAIL {} ({} in all):".format(kind, totals[kind]))
        for text in errors[kind]:
            print("  " + text)
    if not args.quiet and not failed:
        print("ok: names, slices, flows, counters")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
