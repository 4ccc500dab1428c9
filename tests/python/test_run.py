"""kernbench.run: the same run as the CLI's, through the same code; its
JSON is the CLI's --json for the same command line (issue 33, item 3)."""

import json
import os

import kernbench
from conftest import cli, comparable, without_wall

GEMM = dict(M=256, K=256, N=256)
GEMM_ARGS = ["run", "--M", "256", "--K", "256", "--N", "256"]


def test_a_gemm_is_the_clis_run():
    r = kernbench.run(**GEMM)
    c = cli(GEMM_ARGS)
    assert c.exit_code == 0, c.err
    assert r.exit_code == 0 and r.ok
    assert comparable(r.json) == comparable(c.json)
    assert r.json["summary"]["flops"] == 2 * 256 ** 3
    # The text report is captured, not printed: the CLI's, less wall time.
    assert without_wall(r.text) == without_wall(c.out)
    assert r.argv[:7] == GEMM_ARGS


def test_a_kernel_with_verify_is_the_clis_run():
    opts = dict(kernel="gemm_bias_relu", args={"M": 64, "K": 64, "N": 64, "tile": 32},
                verify=True, pes=2)
    r = kernbench.run(**opts)
    c = cli(["run", "--kernel", "gemm_bias_relu", "--arg", "M=64", "--arg", "K=64", "--arg",
             "N=64", "--arg", "tile=32", "--verify", "--pes", "2"])
    assert c.exit_code == 0, c.err
    assert r.ok
    assert comparable(r.json) == comparable(c.json)
    assert r.json["kernel"]["name"] == "gemm_bias_relu"
    assert "verdict: PASS" in r.text


def test_a_program_is_the_clis_run():
    r = kernbench.run(program="gemm_chain", args={"M": 128}, verify=True)
    c = cli(["run", "--program", "gemm_chain", "--arg", "M=128", "--verify"])
    assert c.exit_code == 0, c.err
    assert r.ok
    assert comparable(r.json) == comparable(c.json)
    launches = r.json["kernel"]["launches"]
    assert [l["kernel"] for l in launches] == ["gemm", "gemm"]
    # The second is issued when the first completes at the host.
    assert launches[1]["issue_ps"] == launches[0]["done_ps"]
    assert launches[1]["decided_by"] == 0 and launches[1]["critical"]
    # Each PE ran one command per launch: launch 1's end was its second.
    assert launches[1]["ended_by_command"] == 2
    assert launches[1]["ended_on"].startswith("sip0.cube0.pe")
    assert r.json["end_ps"] == launches[1]["done_ps"]
    assert "verdict: PASS" in r.text


def test_options_with_dashes_lists_and_sets_map_to_the_cli():
    r = kernbench.run(M=128, K=128, N=128, tile=(64, 64, 64), max_sim_time="1ms",
                      set={"cube.pe_template.pe_gemm.mac_rows": 16}, threads=2)
    c = cli(["run", "--M", "128", "--K", "128", "--N", "128", "--tile", "64x64x64",
             "--max-sim-time", "1ms", "--set", "cube.pe_template.pe_gemm.mac_rows=16",
             "--threads", "2"])
    assert c.exit_code == 0, c.err
    assert comparable(r.json) == comparable(c.json)
    assert r.json["set"] == ["cube.pe_template.pe_gemm.mac_rows=16"]


def test_threads_do_not_change_the_result():
    one = kernbench.run(**GEMM, threads=1)
    two = kernbench.run(**GEMM, threads=2)
    assert comparable(one.json) == comparable(two.json)


def test_tables_have_a_row_per_entry_of_the_json():
    r = kernbench.run(M=256, K=256, N=256, pes=2, repeat=2)
    doc = r.json
    commands = r.rows("commands")
    assert len(commands) == sum(len(pe["commands"]) for pe in doc["pes"]) == 4
    assert {row["pe"] for row in commands} == {pe["pe"] for pe in doc["pes"]}
    assert commands[0]["latency_ps"] == doc["pes"][0]["commands"][0]["latency_ps"]
    assert "stages.gemm.count" in commands[0]
    assert len(r.rows("units")) == len(doc["units"])
    links = r.rows("links")
    assert len(links) == sum(1 for u in doc["units"] for k in u["figures"]
                             if k.startswith("link:") and k.endswith(".bytes"))
    assert all({"from", "to", "bytes"} <= set(row) for row in links)
    assert r.rows("fabric_links") == doc["fabric"]["links"]
    # Without pandas the tables are these rows.
    if not hasattr(r.units, "shape"):
        assert r.units == r.rows("units")


def test_a_machine_dict_or_a_result_is_a_topology(tmp_folder):
    first = kernbench.run(**GEMM, set={"cube.hbm.bandwidth_gbps": 128})
    again = kernbench.run(topology=first, **GEMM)
    as_dict = kernbench.run(topology=first.machine, **GEMM)
    for r in (again, as_dict):
        assert r.json["end_ps"] == first.json["end_ps"]
        assert r.json["machine"] == first.json["machine"]
        assert comparable(r.json, same_topology=False)["summary"] == first.json["summary"]
    # The machine of a path, with --set as a run applies it.
    path = os.path.join(tmp_folder, "machine.json")
    with open(path, "w") as f:
        json.dump(first.machine, f)
    assert kernbench.load_machine(path) == first.machine
    assert kernbench.load_machine(set={"cube.hbm.bandwidth_gbps": 128}) == first.machine
    assert kernbench.load_machine(first) == first.machine


def test_any_command_line_runs_in_process():
    code, text = kernbench.cli("list-kernels")
    assert code == 0 and "gemm_bias_relu" in text
    kinds = kernbench.list_components()
    assert kinds  # the kinds and their keys, as list-components --json
    assert kernbench.version
