#!/usr/bin/env python3
"""Design space of one PE: MAC array size x HBM bandwidth -> achieved vs peak
FLOP/s of a GEMM, and a roofline plot (docs/python.md).

    PYTHONPATH=build/python python3 examples/python/design_space.py [OUT.png]

Sweeps the default machine (config/topology.yaml: one PE runs the GEMM) over
square MAC arrays (cube.pe_template.pe_gemm.mac_rows = mac_cols) and the
HBM controller's bandwidth (cube.hbm.bandwidth_gbps), for a 1024^3 f16 GEMM
in 32^3, 64^3 and 128^3 tiles (three arithmetic intensities: bigger tiles
re-read less). Prints one line per point and writes a PNG with two panels: achieved
TFLOP/s against bandwidth per array, and the roofline (achieved FLOP/s
against FLOP per HBM byte, under each array's compute roof and each
bandwidth's slope). 72 runs in one Python process, a few seconds on two
cores.
"""

import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import kernbench  # noqa: E402

MACS = [16, 32, 64, 128]
BANDWIDTHS = [32, 64, 128, 256, 512, 1024]  # GB/s
TILES = ["32x32x32", "64x64x64", "128x128x128"]
GEMM = dict(M=1024, K=1024, N=1024)


def main(out="design_space.png"):
    # A square array sets two keys: one sweep per array size, over tiles and
    # bandwidths (18 points each, `jobs` at a time).
    rows, wall = [], 0.0
    for mac in MACS:
        s = kernbench.sweep({"tile": TILES, "cube.hbm.bandwidth_gbps": BANDWIDTHS},
                            set={"cube.pe_template.pe_gemm.mac_rows": mac,
                                 "cube.pe_template.pe_gemm.mac_cols": mac},
                            jobs=os.cpu_count() or 1, results=False, **GEMM)
        rows += [dict(r, mac=mac) for r in s.rows]
        wall += s.wall_s
    failed = [r for r in rows if r["status"] != "ok"]
    if failed:
        sys.exit(f"{len(failed)} point(s) failed, e.g.: {failed[0]['error']}")
    print(f"{'tile':>12} {'MACs':>8} {'GB/s':>6} {'TFLOP/s':>8} {'peak':>7} {'util':>6} "
          f"{'FLOP/B':>7}")
    for r in rows:
        mac = r["mac"]
        print(f"{r['tile']:>12} {mac:>4}x{mac:<3} {r['cube.hbm.bandwidth_gbps']:>6} "
              f"{r['achieved_flop_per_s'] / 1e12:8.3f} {r['peak_flop_per_s'] / 1e12:7.3f} "
              f"{r['flop_utilisation']:6.1%} {r['flops'] / r['hbm_bytes']:7.1f}")

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    for mac in MACS:
        mine = [r for r in rows if r["mac"] == mac
                and r["tile"] == TILES[-1]]
        line, = left.plot([r["cube.hbm.bandwidth_gbps"] for r in mine],
                          [r["achieved_flop_per_s"] / 1e12 for r in mine], "o-",
                          label=f"{mac}x{mac} MACs")
        left.axhline(mine[0]["peak_flop_per_s"] / 1e12, color=line.get_color(), ls=":", lw=1)
    left.set(xscale="log", yscale="log", xlabel="HBM bandwidth (GB/s)",
             ylabel="achieved TFLOP/s", title=f"1024^3 f16 GEMM, {TILES[-1]} tiles "
             "(dotted: peak)")
    left.set_xticks(BANDWIDTHS, [str(b) for b in BANDWIDTHS])
    left.legend()

    intensity = [r["flops"] / r["hbm_bytes"] for r in rows]
    lo, hi = min(intensity) / 2, max(intensity) * 2
    for bw in BANDWIDTHS:  # the memory roofs: FLOP/s = intensity x bytes/s
        right.plot([lo, hi], [lo * bw * 1e9, hi * bw * 1e9], color="0.8", lw=1)
        right.annotate(f"{bw} GB/s", (lo, lo * bw * 1e9), fontsize=7, color="0.5")
    for mac in MACS:
        mine = [r for r in rows if r["mac"] == mac]
        points = right.scatter([r["flops"] / r["hbm_bytes"] for r in mine],
                               [r["achieved_flop_per_s"] for r in mine],
                               c=[r["cube.hbm.bandwidth_gbps"] for r in mine], cmap="viridis",
                               norm=matplotlib.colors.LogNorm(), marker="os^D"[MACS.index(mac)],
                               label=f"{mac}x{mac} MACs")
        right.axhline(mine[0]["peak_flop_per_s"], color="0.6", ls=":", lw=1)
    fig.colorbar(points, ax=right, label="HBM bandwidth (GB/s)")
    right.set(xscale="log", yscale="log", xlabel="FLOP per HBM byte", ylabel="achieved FLOP/s",
              title="roofline (dotted: compute peaks; grey: bandwidth slopes)")
    right.set_ylim(min(r["achieved_flop_per_s"] for r in rows) / 2,
                   max(r["peak_flop_per_s"] for r in rows) * 2)
    right.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out} ({len(rows)} points, sweeps {wall:.1f} s)")


if __name__ == "__main__":
    main(*sys.argv[1:2])
