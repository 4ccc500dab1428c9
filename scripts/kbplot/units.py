"""Columns and swept keys in words and human units (TFLOP/s, GB/s, µs, %)."""
import math
import os

# Known columns: (words, unit, divisor). Latencies (*_ps) pick their unit
# from their values; other columns are named from the column.
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
    "events": ("simulated events", "thousands", 1e3),
    "wall_s": ("engine wall time", "s", 1),
    "process_wall_s": ("process wall time", "s", 1),
    "flops": ("work", "GFLOP", 1e9),
    "hbm_bytes": ("HBM traffic", "MB", 1e6),
    "arithmetic_intensity": ("arithmetic intensity", "FLOP/byte of HBM traffic", 1),
}

# The machine's ceiling of a column, drawn dashed beside it.
PEAK_OF = {
    "achieved_flop_per_s": "peak_flop_per_s",
    "achieved_hbm_bytes_per_s": "peak_hbm_bytes_per_s",
}

KEY_UNITS = {"_gbps": "GB/s", "_ns": "ns", "_ps": "ps", "_cycles": "cycles", "_bytes": "B"}


def number(text):
    """The float of a CSV field, None when it is not a finite number."""
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def plain(v):
    """A number as people write it: 3 significant digits, never an exponent."""
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 100:
        return f"{v:.0f}"
    if a >= 1:
        return f"{v:.3g}"
    decimals = 2 - math.floor(math.log10(a))
    return f"{v:.{decimals}f}".rstrip("0").rstrip(".")


def scale(column, values):
    """(words, unit, divisor) of a column, the unit fitting its values."""
    if column in COLUMNS:
        return COLUMNS[column]
    if column.endswith("_ps"):
        words = column[:-3].replace("_", " ")
        top = max((abs(v) for v in values), default=0)
        for unit, div in (("ms", 1e9), ("µs", 1e6), ("ns", 1e3)):
            if top >= div * 10:
                return words, unit, div
        return words, "ps", 1
    return column.replace("_", " "), "", 1


def axis_label(words, unit):
    return f"{words} ({unit})" if unit else words


def key_parts(key):
    """A swept key's words and unit, from its suffix: (cube.hbm.bandwidth, GB/s)."""
    for suffix, unit in KEY_UNITS.items():
        if key.endswith(suffix):
            return key[: -len(suffix)], unit
    return key, ""


def key_label(key):
    """A swept key as an axis or legend title: `cube.hbm.bandwidth (GB/s)`."""
    return axis_label(*key_parts(key))


def short_key(key):
    """The last two parts of a dotted key and no unit: pe_gemm.mac_rows for
    cube.pe_template.pe_gemm.mac_rows, hbm.bandwidth for cube.hbm.bandwidth_gbps."""
    return ".".join(key_parts(key)[0].split(".")[-2:])


def value_label(key, value):
    """A value of a swept key with its unit: `64 GB/s`, `64x64x64`, `topology.yaml`."""
    if key == "topology":
        return os.path.basename(value)
    unit = key_parts(key)[1]
    return f"{value} {unit}" if unit and value else value or "(none)"


def rate_text(column, value):
    """A value of a known column in its unit: `2.05 TFLOP/s`."""
    words, unit, div = scale(column, [value])
    return f"{plain(value / div)} {unit}".strip()
