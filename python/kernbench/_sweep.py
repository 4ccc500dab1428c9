"""``kernbench.sweep``: ``kernbench sweep``'s points, run in this process.

The points and their command lines come from the CLI's own code
(runtime/cli/sweep_points), so a point is the ``kernbench run`` the CLI's
sweep would start; here it runs in this process instead (the GIL released;
``jobs`` points at a time on threads). A failed point is a row with its
error, as in the CLI, and the sweep goes on.
"""

import concurrent.futures
import csv
import json
import os
import tempfile
import time

from . import _argv, _kernbench
from . import _call, _check_options, _error, _kernel_lib_options, _stdout, InputError
from ._result import Result, table


class Sweep:
    """The points of a sweep, in the CLI's order (the first parameter
    varies slowest).

    - ``rows``: one dict per point with the CLI sweep CSV's columns: each
      parameter, ``status`` (``ok``/``failed``), ``error``, ``process_wall_s``
      (the point's wall time here) and ``run --csv``'s columns (numbers as
      numbers); ``table``: the same, a DataFrame when pandas is installed;
    - ``results``: each point's ``Result`` (None for a failed point);
    - ``keys``: the parameters; ``failed``: how many points failed.
    """

    def __init__(self, keys, rows, results, wall_s, header, lines):
        self.keys = keys
        self.rows = rows
        self.results = results
        self.wall_s = wall_s
        self._header = header  # the CLI's CSV: its header and fields as text
        self._lines = lines

    @property
    def failed(self):
        return sum(1 for r in self.rows if r["status"] != "ok")

    @property
    def ok(self):
        return self.failed == 0

    @property
    def table(self):
        return table(self.rows)

    def __len__(self):
        return len(self.rows)

    def __iter__(self):
        return iter(self.results)

    def __getitem__(self, i):
        return self.results[i]

    def write_csv(self, path):
        """The CSV ``kernbench sweep --csv`` writes (its header and columns)."""
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(self._header)
            w.writerows(self._lines)

    def __repr__(self):
        return f"<kernbench.Sweep {len(self.rows)} point(s), {self.failed} failed>"


def _number(text):
    """A CSV field as a number when it is one."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _one_line(message):
    """A failure's message as the CLI sweep's error column writes it."""
    lines = [ln[len("kernbench: error: "):] if ln.startswith("kernbench: error: ") else ln
             for ln in message.splitlines()]
    return " | ".join(ln for ln in lines if ln and ln != "Run with --help for more information.")


def _run_point(args, folder, i, invocation, keep_json, tee_stderr):
    """One point: (status, error, wall_s, csv fields, Result or None)."""
    csv_path = os.path.join(folder, f"{i}.csv")
    json_path = os.path.join(folder, f"{i}.json")
    point = [*args, "--quiet", "--csv", csv_path]
    if keep_json:
        point += ["--json", json_path]
    t0 = time.perf_counter()
    code, message = _call(point, None, invocation, tee_stderr)
    wall = time.perf_counter() - t0
    if message is not None or code != 0:
        error = _one_line(message) if message else f"kernbench run exited with status {code}"
        return "failed", error, wall, None, None
    with open(csv_path, encoding="utf-8", newline="") as f:
        lines = list(csv.reader(f))
    if len(lines) < 2 or lines[0] != _kernbench.run_csv_header():
        return "failed", "kernbench run wrote no summary row", wall, None, None
    result = None
    if keep_json:
        with open(json_path, encoding="utf-8") as f:
            result = Result(json.load(f), code, None, point)
    return "ok", "", wall, lines[1], result


def _run_parallel(points, folder, invocation, keep_json, jobs, outcome):
    """The points on ``jobs`` threads. Ctrl-C (or any error here) cancels the
    points not started and asks those in flight to stop at a safe point."""
    pool = concurrent.futures.ThreadPoolExecutor(jobs, thread_name_prefix="kernbench-sweep")
    # Standard error is one for all: a point's own message is its exception's.
    futures = {pool.submit(_run_point, args, folder, i, invocation, keep_json, False): i
               for i, (_, args) in enumerate(points)}
    try:
        for f in concurrent.futures.as_completed(futures):
            outcome[futures[f]] = f.result()
    except BaseException:
        for f in futures:
            f.cancel()
        _kernbench.request_stop()
        raise
    finally:
        pool.shutdown(wait=True)


def sweep(param, *, jobs=1, results=True, echo=False, topology=None, **options):
    """``kernbench sweep --param KEY=v1,v2,... -- OPTIONS``, in this process.

    ``param``: ``{KEY: [values]}`` (a run option such as ``M`` or ``tile``,
    a kernel argument ``arg.NAME``, or a topology key such as
    ``cube.hbm.bandwidth_gbps``); the points are the cross product.
    ``options`` and ``topology``: as for ``run``, the same for every point.
    ``jobs``: points run at a time, on threads of this process (the CLI's
    ``--jobs``). ``results``: keep each point's ``--json`` (``Sweep.results``).
    ``echo``: let the points' text reports through to standard output.
    Returns a ``Sweep``; bad parameters raise ``InputError``; a failed point
    does not raise (its row says why)."""
    _check_options(options)
    options = _kernel_lib_options(options)
    params = [_argv.param_arg(k, v) for k, v in param.items()]
    if jobs < 1:
        raise InputError(f"--jobs {jobs}: expected at least 1", 2)
    with tempfile.TemporaryDirectory(prefix="kernbench-py-sweep-") as folder:
        base = [*_argv.topology_args(topology, folder), *_argv.options_args(options)]
        made, message = _kernbench.sweep_points(params, base)
        if message is not None:
            raise _error(2, message)
        keys, points = made
        invocation = ["kernbench", "sweep", *[a for p in params for a in ("--param", p)],
                      "--", *base]
        header = _kernbench.run_csv_header()
        outcome = [None] * len(points)
        t0 = time.perf_counter()
        text_path = None if echo else os.path.join(folder, "reports.txt")
        with _stdout:
            # Descriptor 1 to one file for the whole sweep (the CLI's points
            # write theirs to /dev/null); each point runs uncaptured.
            holder = None if echo else _kernbench.stdout_to(text_path)
            try:
                if jobs == 1:
                    for i, (_, args) in enumerate(points):
                        outcome[i] = _run_point(args, folder, i, invocation, results, True)
                else:
                    _run_parallel(points, folder, invocation, results, jobs, outcome)
            finally:
                if holder is not None:
                    holder.close()
        wall = time.perf_counter() - t0
    rows, kept, lines = [], [], []
    for (values, _), (status, error, point_wall, fields, result) in zip(points, outcome):
        fields = list(fields or []) + [""] * (len(header) - len(fields or []))
        line = [*values, status, error, f"{point_wall:.6g}", *fields]
        lines.append(line)
        row = dict(zip(keys, (_number(v) for v in values)))
        row.update(status=status, error=error, process_wall_s=point_wall)
        row.update({h: (_number(v) if v != "" else None) for h, v in zip(header, fields)})
        rows.append(row)
        kept.append(result)
    columns = [*keys, "status", "error", "process_wall_s", *header]
    return Sweep(keys, rows, kept, wall, columns, lines)
