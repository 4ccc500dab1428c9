"""Keyword arguments -> a ``kernbench run`` command line.

Every keyword is the CLI option of the same name (``M=512`` -> ``--M 512``,
``max_sim_time="1ms"`` -> ``--max-sim-time 1ms``); the CLI parses the
result, so an unknown keyword is the CLI's own error. The rules:

- ``True`` -> the flag; ``False`` and ``None`` -> nothing (``verify=False``
  -> ``--no-verify``);
- a list or tuple -> the option repeated (``epilogue=["relu:output_tile"]``),
  except ``tile``, whose parts are joined with ``x`` (``tile=(64, 64, 64)``);
- ``set``, ``args``, ``inputs``, ``places`` take a dict (or a list of
  ``"KEY=VALUE"`` strings) -> ``--set``, ``--arg``, ``--input``, ``--place``
  once per entry;
- ``kernel_lib`` (or ``kernel_libs``) -> ``--kernel-lib`` per path.
"""

import json
import os

# keyword -> the option given once per entry of its dict or list
KEYED = {
    "set": "--set",
    "args": "--arg",
    "arg": "--arg",
    "inputs": "--input",
    "input": "--input",
    "places": "--place",
    "place": "--place",
}
# keyword -> the option a False value gives
NEGATED = {"verify": "--no-verify"}
# options whose parts are one value joined with "x" (as `sweep` writes them)
JOINED = {"tile"}
# keywords the module handles itself (not CLI options)
OWN = {"echo"}


def option(key):
    """``max_sim_time`` -> ``--max-sim-time``; ``M`` -> ``--M``."""
    return "--" + key.replace("_", "-")


def text(value):
    """A value as the command line writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


def joined(value):
    if isinstance(value, (list, tuple)):
        return "x".join(text(v) for v in value)
    return text(value)


def keyed(flag, value):
    """``{"a": 1}`` or ``["a=1"]`` -> ``[flag, "a=1"]``."""
    if isinstance(value, dict):
        entries = [f"{k}={text(v)}" for k, v in value.items()]
    elif isinstance(value, (list, tuple)):
        entries = [text(v) for v in value]
    else:
        entries = [text(value)]
    out = []
    for e in entries:
        out += [flag, e]
    return out


def options_args(options):
    """The command line of ``options`` (a dict of keyword arguments), in order."""
    out = []
    for key, value in options.items():
        if value is None:
            continue
        if key in ("kernel_lib", "kernel_libs"):
            paths = value if isinstance(value, (list, tuple)) else [value]
            for p in paths:
                out += ["--kernel-lib", text(p)]
        elif key in KEYED:
            out += keyed(KEYED[key], value)
        elif value is True:
            out.append(option(key))
        elif value is False:
            if key in NEGATED:
                out.append(NEGATED[key])
        elif key in JOINED:
            out += [option(key), joined(value)]
        elif isinstance(value, (list, tuple)):
            for v in value:
                out += [option(key), text(v)]
        else:
            out += [option(key), text(value)]
    return out


def machine_of(topology):
    """The machine dict of a result, a result's JSON or a machine dict."""
    doc = getattr(topology, "json", topology)
    if isinstance(doc, dict) and "machine" in doc and "schema_version" in doc:
        return doc["machine"]
    return doc


def topology_args(topology, folder):
    """``--topology PATH``: a path as given; a dict (a machine, or a result's
    JSON) or a result written to ``folder/machine.json`` (kernbench reads
    JSON topologies)."""
    if topology is None:
        return []
    if isinstance(topology, (str, os.PathLike)):
        return ["--topology", text(topology)]
    machine = machine_of(topology)
    if not isinstance(machine, dict):
        raise TypeError("topology: expected a path, a machine dict or a kernbench result, "
                        f"not {type(topology).__name__}")
    path = os.path.join(folder, "machine.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(machine, f)
    return ["--topology", path]


def param_arg(key, values):
    """``sweep`` parameter -> ``KEY=v1,v2,...`` (``--param``)."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        values = [values]
    form = joined if key in JOINED else text
    return f"{key}=" + ",".join(form(v) for v in values)
