"""kernbench results as one table: rows of text fields, named as the CSV names them.

A RESULT file is one of
- a sweep CSV (`kernbench sweep --csv`): the swept parameters are the
  columns before `status`;
- a `run --csv` file (one row per run, header topology,set,program,...);
- a `run --json` result: one point, its `summary` object as the `run --csv`
  columns (wall times excepted: the JSON has none).
A row whose status is not ok, or whose run was stopped early (`complete`
false), is left out of the figures.
Each row also gets what identifies its run, parsed from its `program`,
`set`, `pes`, `topology` (and a JSON's `kernel`): M, K, N, dtype, tile, op,
kernel, arg.NAME, pes and each --set key. A parameter is a swept column, or
an identifying key whose value differs between the rows; the rest are fixed
and go in the figure's caption.
"""
import csv
import json
import os
import re

from .units import number


class BadInput(Exception):
    """Input that cannot be plotted: the message names the file and why."""


RUN_COLUMNS = ["topology", "set", "program", "pes", "end_ps", "max_latency_ps", "kernel_latency_ps", "flops",
               "achieved_flop_per_s", "peak_flop_per_s", "flop_utilisation", "hbm_bytes",
               "achieved_hbm_bytes_per_s", "peak_hbm_bytes_per_s", "hbm_utilisation",
               "busiest_unit_1", "busiest_utilisation_1", "busiest_unit_2",
               "busiest_utilisation_2", "busiest_unit_3", "busiest_utilisation_3", "events",
               "wall_s", "events_per_s"]

# The identifying keys in caption order; --set keys and arg.NAME follow.
ID_KEYS = ["kernel", "op", "M", "K", "N", "dtype", "tile", "pes"]

PROGRAMS = [
    (re.compile(r"^gemm (\d+)x(\d+)x(\d+) (\S+) tiles (\S+)$"), ("M", "K", "N", "dtype", "tile")),
    (re.compile(r"^math (\S+) (\d+)x(\d+) (\S+) tiles (\S+)$"), ("op", "M", "N", "dtype", "tile")),
    (re.compile(r"^kernel (\S+)$"), ("kernel",)),
]


class Results:
    """The rows of every RESULT file, with what varies and what does not."""

    def __init__(self, paths):
        self.paths = list(paths)
        self.rows = []      # dicts of text fields, every row of every file
        self.columns = []   # in first-seen order
        self.params = []    # swept or varying keys, in order
        self.ids = []       # identifying keys seen, in caption order
        self.machines = []  # per JSON row: a short description of its machine
        declared = []
        for path in self.paths:
            for key in _load(path, self.rows, declared, self.machines):
                if key not in declared:
                    declared.append(key)
        for row in self.rows:  # the files' own columns, not what _identify derived
            for c in row:
                if c not in self.columns and not c.startswith("_") and c not in row["_derived"]:
                    self.columns.append(c)
        # A run stopped early (SIGINT: complete false) has partial figures.
        self.ok = [r for r in self.rows if r.get("status", "ok") == "ok"
                   and r.get("complete", "true").lower() not in ("false", "0")]
        ids = [k for k in ID_KEYS if any(k in r for r in self.rows)]
        ids += sorted({k for r in self.rows for k in r.get("_ids", ()) if k not in ID_KEYS})
        self.ids = ids
        for row in self.rows:
            for k in ids:
                row.setdefault(k, _machine_value(row, k))
        self.params = declared + [k for k in ids if k not in declared
                                  and len({r[k] for r in self.ok}) > 1]
        if len({r.get("topology", "") for r in self.ok}) > 1 and "topology" not in self.params:
            self.params.append("topology")

    def names(self):
        """The files, for messages."""
        return ", ".join(self.paths)

    def fixed(self):
        """(key, value) of every parameter and identifying key with one value."""
        out = []
        for k in self.params + [k for k in self.ids if k not in self.params]:
            values = {r.get(k, "") for r in self.ok}
            if len(values) == 1 and k != "topology":
                out.append((k, next(iter(values))))
        return out

    def machine(self):
        """The machine the rows ran on, when they all ran on one."""
        tops = {os.path.basename(r.get("topology", "")) for r in self.ok} - {""}
        if len(tops) != 1:
            return ""
        text = next(iter(tops))
        shapes = {r.get("_machine", "") for r in self.ok} - {""}
        if len(shapes) == 1:
            text += f" ({next(iter(shapes))})"
        return text

    def build(self):
        """`kernbench 0.1.0 (56a873c)` when every row says the same (a JSON's
        kernbench object, the CSV's kernbench_version and git columns)."""
        builds = {(r.get("kernbench_version", ""), r.get("git", "")) for r in self.ok}
        if len(builds) != 1 or not next(iter(builds))[0]:
            return ""
        version, git = next(iter(builds))
        return f"kernbench {version}" + (f" ({git})" if git else "")


def _load(path, rows, declared, machines):
    """Appends the rows of one file; returns its declared (swept) parameters."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file")
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: cannot read it ({getattr(e, 'strerror', None) or e})")
    if text.lstrip().startswith("{"):
        rows.append(_json_row(path, text))
        return []
    table = list(csv.reader(text.splitlines()))
    header = table[0] if table else []
    if "status" in header and "program" in header:
        params = header[: header.index("status")]
    elif header[:3] == RUN_COLUMNS[:3]:
        params = []
    else:
        raise BadInput(f"{path} is neither a sweep CSV (no status column), a `run --csv` file "
                       "nor a `run --json` result")
    for n, fields in enumerate(table[1:], start=2):
        if not fields:
            continue
        if len(fields) != len(header):
            raise BadInput(f"{path}:{n}: {len(fields)} fields, the header has {len(header)}")
        row = dict(zip(header, fields))
        row["_source"] = path
        _identify(row)
        rows.append(row)
    if not table[1:]:
        raise BadInput(f"{path}: a header and no rows")
    return params


def _json_row(path, text):
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise BadInput(f"{path}: not valid JSON ({e})")
    s = doc.get("summary") if isinstance(doc, dict) else None
    if not isinstance(s, dict):
        raise BadInput(f"{path} is JSON but not a `kernbench run --json` result "
                       "(no summary object)")
    kernel = doc.get("kernel") if isinstance(doc.get("kernel"), dict) else None
    program = doc.get("program") or []
    row = {"_source": path, "status": "ok", "topology": str(doc.get("topology", "")),
           "set": " ".join(doc.get("set") or []),
           "program": program[0] if program else f"kernel {kernel['name']}" if kernel else "idle",
           "pes": str((doc.get("groups") or {}).get("pes", len(doc.get("pes") or [])))}
    if "complete" in doc:
        row["complete"] = str(doc["complete"]).lower()
    if "end_ps" in doc:
        row["end_ps"] = str(doc["end_ps"])
    for k in ("max_latency_ps", "kernel_latency_ps", "flops", "achieved_flop_per_s", "peak_flop_per_s", "hbm_bytes",
              "achieved_hbm_bytes_per_s", "peak_hbm_bytes_per_s", "events"):
        if k in s:
            row[k] = str(s[k])
    for done, top, ratio in (("achieved_flop_per_s", "peak_flop_per_s", "flop_utilisation"),
                             ("achieved_hbm_bytes_per_s", "peak_hbm_bytes_per_s",
                              "hbm_utilisation")):
        a, p = number(row.get(done)), number(row.get(top))
        if a is not None and p:
            row[ratio] = str(a / p)
    for i, unit in enumerate(s.get("busiest_units") or [], start=1):
        if i <= 3 and isinstance(unit, dict):
            row[f"busiest_unit_{i}"] = str(unit.get("unit", ""))
            row[f"busiest_utilisation_{i}"] = str(unit.get("utilisation", ""))
    if kernel:
        for k, v in (kernel.get("args") or {}).items():
            row[f"arg.{k}"] = str(v)
    build = doc.get("kernbench") if isinstance(doc.get("kernbench"), dict) else {}
    row["kernbench_version"], row["git"] = str(build.get("version", "")), str(build.get("git", ""))
    row["_doc_machine"] = doc.get("machine") if isinstance(doc.get("machine"), dict) else None
    row["_machine"] = _machine_shape(row["_doc_machine"])
    _identify(row)
    if kernel:
        row["_ids"] += [f"arg.{k}" for k in kernel.get("args") or {}]
    return row


def _identify(row):
    """Adds the identifying keys a row's program and --set carry."""
    ids, derived = [], []

    def put(key, value):
        if key not in row:
            row[key] = value
            derived.append(key)

    for pattern, keys in PROGRAMS:
        m = pattern.match(row.get("program", ""))
        if m:
            for k, v in zip(keys, m.groups()):
                put(k, v)
            break
    for item in row.get("set", "").split():
        key, _, value = item.partition("=")
        if key:
            put(key, value)
            ids.append(key)
    row["_ids"], row["_derived"] = ids, derived


def _machine_value(row, key):
    """A --set key some runs did not set: its value in this run's machine."""
    node = row.get("_doc_machine")
    for part in key.split("."):
        if isinstance(node, dict) and part not in node and isinstance(node.get("components"), dict):
            node = node["components"]
        node = node.get(part) if isinstance(node, dict) else None
    if node is None or isinstance(node, (dict, list)):
        return "default" if "." in key else ""
    return str(node).lower() if isinstance(node, bool) else str(node)


def _machine_shape(m):
    """`1 SIP, 1 cube, 2x2 PEs per cube, 1 GHz` from a JSON's machine object."""
    try:
        layout = m["cube"]["pe_layout"]
        text = (f"{m['system']['sips']} SIP(s) × {m['sip']['cubes']} cube(s) × "
                f"{layout['rows']}×{layout['cols']} PEs")
        period = m.get("clock_period_ps")
        if period:
            text += f", {1000 / period:g} GHz"
        return text
    except (KeyError, TypeError):
        return ""


def check_column(res, column, what="metric"):
    """A column the rows have numbers in, or BadInput naming the columns that are."""
    numeric = [c for c in res.columns if any(number(r.get(c)) is not None for r in res.ok)]
    if column not in res.columns:
        raise BadInput(f"{what} '{column}' is not a column of {res.names()} "
                       f"(the numeric columns: {', '.join(numeric)})")
    if column not in numeric:
        raise BadInput(f"{what} '{column}' of {res.names()} has no numbers to plot "
                       f"(the numeric columns: {', '.join(numeric)})")


def check_param(res, key, what="parameter"):
    if key not in res.params and key not in res.ids:
        known = res.params + [k for k in res.ids if k not in res.params]
        raise BadInput(f"{what} '{key}' is not a parameter of {res.names()} "
                       f"(the parameters: {', '.join(known) or 'none: every run is the same'})")
