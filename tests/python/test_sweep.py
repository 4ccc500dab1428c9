"""kernbench.sweep: the CLI sweep's points, run in this process; each row
has the CLI sweep CSV's numbers and each point the CLI's --json."""

import csv
import os

import kernbench
from conftest import VARYING_CSV, cli, cli_sweep, comparable

PARAM = {"M": [128, 256], "cube.hbm.bandwidth_gbps": [128, 512]}
CLI_PARAMS = ["M=128,256", "cube.hbm.bandwidth_gbps=128,512"]
BASE = dict(K=256, N=256)
CLI_BASE = ["--K", "256", "--N", "256"]


def without_outputs(argv):
    """A point's command line less the --quiet/--csv/--json the sweep adds."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a in ("--csv", "--json"):
            skip = True
        elif a != "--quiet":
            out.append(a)
    return out


def test_a_four_point_sweep_is_the_clis(tmp_folder):
    s = kernbench.sweep(PARAM, jobs=2, **BASE)
    assert len(s) == 4 and s.ok and s.keys == list(PARAM)
    rows = cli_sweep(CLI_PARAMS, CLI_BASE)
    assert len(rows) == 4
    assert [list(r) for r in rows][0] == list(s.rows[0])  # the same columns
    for mine, theirs in zip(s.rows, rows):
        for k, v in theirs.items():
            if k in VARYING_CSV:
                continue
            got = mine[k]
            assert ("" if got is None else str(got)) == v or got == float(v), (k, got, v)
    # write_csv writes the CLI's CSV: the same text, less wall-clock columns.
    path = os.path.join(tmp_folder, "mine.csv")
    s.write_csv(path)
    with open(path, newline="") as f:
        written = list(csv.DictReader(f))
    assert [{k: v for k, v in r.items() if k not in VARYING_CSV} for r in written] == \
        [{k: v for k, v in r.items() if k not in VARYING_CSV} for r in rows]
    # Each point is the CLI's run of its command line.
    for r in s.results:
        c = cli(without_outputs(r.argv))
        assert c.exit_code == 0, c.err
        assert comparable(r.json) == comparable(c.json)


def test_one_job_or_two_the_same_numbers():
    one = kernbench.sweep({"M": [128, 256]}, jobs=1, **BASE)
    two = kernbench.sweep({"M": [128, 256]}, jobs=2, **BASE)
    for a, b in zip(one.results, two.results):
        assert comparable(a.json) == comparable(b.json)


def test_a_failed_point_is_a_row_and_the_sweep_goes_on():
    s = kernbench.sweep({"M": [128, 0], "tile": [(64, 64, 64)]}, K=128, N=128)
    assert [r["status"] for r in s.rows] == ["ok", "failed"]
    assert s.rows[1]["error"] == "--op gemm: generate_gemm_plan: M must be > 0"
    assert s.results[1] is None and s.failed == 1
    assert s.rows[0]["tile"] == "64x64x64"


def test_bad_parameters_raise_before_any_point():
    try:
        kernbench.sweep({"M": []}, K=128)
    except kernbench.InputError as e:
        assert "--param" in str(e)
    else:
        raise AssertionError("no InputError")
