"""A run of many PEs: its --json holds the figures grouped over the PEs
(`groups`), not every PE's (issue 31, item 3). The groups are checked here
against every PE's figures of the same run with --per-pe, computed anew from
the spread's definition (docs/results-schema.md): the least, the median (of
an even count the upper one), the most, the total, and the first PE in run
order with the least and with the most."""

import os
import re

from conftest import cli

# 20 PEs of the 1,024-PE machine: 16 of cube 0 and 4 of cube 1.
MACHINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "config",
                       "scale", "4sip_4cube_64pe.yaml")
RUN = ["run", "--topology", MACHINE, "--M", "128", "--K", "256", "--N", "128",
       "--tile", "64", "64", "64", "--pes", "20"]
PE_NODE = re.compile(r"^sip\d+\.cube\d+\.pe\d+\.")


def spread(values):
    """values: (value, where) in run order."""
    if not values:
        return None
    nums = sorted(v for v, _ in values)
    lo = min(v for v, _ in values)
    hi = max(v for v, _ in values)
    return {"min": lo, "min_at": next(w for v, w in values if v == lo),
            "median": nums[len(nums) // 2], "max": hi,
            "max_at": next(w for v, w in values if v == hi), "total": sum(nums)}


def pe_of(node):
    return node.rsplit(".", 1)[0]


def runs():
    grouped = cli(RUN)
    each = cli(RUN + ["--per-pe"])
    assert grouped.exit_code == 0, grouped.err
    assert each.exit_code == 0, each.err
    return grouped.json, each.json


def test_a_run_of_many_pes_has_its_groups_not_every_pe():
    g, e = runs()
    assert g["schema_version"] == "6.4"
    assert g["per_pe"] is False and e["per_pe"] is True
    assert g["pes"] == [] and g["kernel_time"] == []
    assert len(e["pes"]) == 20 and len(e["kernel_time"]) == 20
    assert not [u for u in g["units"] if PE_NODE.match(u["node"])]
    # Of the nodes outside the PEs, every figure but those of links to a PE.
    outside = [u for u in e["units"] if not PE_NODE.match(u["node"])]
    assert [u["node"] for u in outside] == [u["node"] for u in g["units"]]
    for mine, full in zip(g["units"], outside):
        assert mine["figures"] == {k: v for k, v in full["figures"].items()
                                   if not (k.startswith("link:") and PE_NODE.match(k[5:]))}
    assert any(k.startswith("link:") and PE_NODE.match(k[5:])
               for u in outside for k in u["figures"])
    # The rest of the document is the same with and without --per-pe.
    for key in g:
        if key not in ("pes", "units", "kernel_time", "per_pe", "invocation", "timings"):
            assert g[key] == e[key], key
    assert g["groups"]["pes"] == 20


def test_the_command_groups_are_the_pes_commands():
    g, e = runs()
    groups = g["groups"]["commands"]
    most = max(len(p["commands"]) for p in e["pes"])
    assert [c["id"] for c in groups] == list(range(1, most + 1))
    for c in groups:
        rows = [(p["pe"], p["commands"][c["id"] - 1]) for p in e["pes"]
                if len(p["commands"]) >= c["id"]]
        assert c["pes"] == len(rows) == 20
        assert c["what"] == rows[0][1]["what"] and c["call"] == rows[0][1]["call"]
        assert c["latency_ps"] == spread([(r["latency_ps"], pe) for pe, r in rows])
        assert c["done_ps"] == spread([(r["done_ps"], pe) for pe, r in rows])
        assert c["tiles"] == spread([(r["tiles"], pe) for pe, r in rows])
        assert c["flops"] == sum(r["flops"] for _, r in rows)
        assert c["bytes"] == sum(r["bytes"] for _, r in rows)
    # The max latency of the summary is the most of the groups'.
    assert g["summary"]["max_latency_ps"] == max(c["latency_ps"]["max"] for c in groups)


def test_the_lane_groups_are_the_units_lanes():
    g, e = runs()
    want = {}
    for u in e["units"]:
        node, f = u["node"], u["figures"]
        lanes = sorted({k.split(".")[0] for k in f if k.endswith(".busy_ps")
                        and not k.startswith("link:")})
        for lane in lanes:
            busy, stall = f[f"{lane}.busy_ps"], f.get(f"{lane}.stall_ps", 0)
            stages = f.get(f"{lane}.stages", 0)
            if busy == 0 and stages == 0 and stall == 0:
                continue
            if PE_NODE.match(node):
                key, at = f"pe.{node.split('.', 3)[3]}/{lane}", pe_of(node)
            else:
                parts = node.split(".")
                key, at = (f"cube.{'.'.join(parts[2:])}/{lane}", ".".join(parts[:2])) \
                    if len(parts) > 2 and parts[1].startswith("cube") else (f"{node}/{lane}", node)
            w = want.setdefault(key, {"busy": [], "stall": [], "wait": [], "stages": 0, "bytes": 0})
            w["busy"].append((busy, at))
            w["stall"].append((stall, at))
            w["wait"].append((f.get(f"{lane}.wait_ps", 0), at))
            w["stages"] += stages
            w["bytes"] += f.get(f"{lane}.bytes", 0)
    got = {l["lane"]: l for l in g["groups"]["lanes"]}
    assert set(got) == set(want)
    assert "pe.pe_gemm/gemm" in got and got["pe.pe_gemm/gemm"]["nodes"] == 20
    for key, w in want.items():
        l = got[key]
        assert l["nodes"] == len(w["busy"]), key
        assert l["busy_ps"] == spread(w["busy"]), key
        assert l["stall_ps"] == spread(w["stall"]), key
        assert l["wait_ps"] == spread(w["wait"]), key
        assert (l["stages"], l["bytes"]) == (w["stages"], w["bytes"]), key


def test_the_link_groups_sum_the_links():
    g, e = runs()
    total = sum(v for u in e["units"] for k, v in u["figures"].items()
                if k.startswith("link:") and k.endswith(".bytes"))
    links = g["groups"]["links"]
    assert sum(l["bytes"]["total"] for l in links) == total > 0
    assert sum(l["links"] for l in links) == sum(
        1 for u in e["units"] for k in u["figures"] if k.startswith("link:") and k.endswith(".bytes"))


def test_the_kernel_time_group_is_the_pes_kernel_time():
    g, e = runs()
    k = g["groups"]["kernel_time"]
    rows = e["kernel_time"]
    assert k["pes"] == len(rows) == 20
    assert k["finished"] == sum(1 for r in rows if r["finished"])
    assert k["span_ps"] == spread([(r["end_ps"] - r["start_ps"], r["pe"]) for r in rows])
    assert k["blocked_load_ps"] == spread([(r["blocked_load_ps"], r["pe"]) for r in rows])
    assert k["wait_ps"] == spread([(r["wait_ps"], r["pe"]) for r in rows])
    assert k["computing_ps"] == spread([(r["computing_ps"], r["pe"]) for r in rows])


def test_a_run_of_few_pes_lists_every_pe_and_its_groups():
    few = cli(["run", "--M", "128", "--K", "128", "--N", "128", "--pes", "2"])
    assert few.exit_code == 0, few.err
    assert few.json["per_pe"] is True and len(few.json["pes"]) == 2
    assert few.json["groups"]["pes"] == 2
    assert few.json["groups"]["commands"][0]["pes"] == 2
