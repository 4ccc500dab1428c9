"""kernbench from Python: the CLI's runs, in this process (docs/python.md).

    import kernbench
    r = kernbench.run(M=512, K=512, N=512, set={"cube.hbm.bandwidth_gbps": 256})
    r.json["summary"]["achieved_flop_per_s"], r.commands, r.units, r.links
    s = kernbench.sweep({"M": [256, 512], "cube.pe_template.pe_gemm.mac_rows": [16, 32]},
                        K=512, N=512)

Keyword arguments are ``kernbench run``'s options (``kernbench run
--help``; the rules in ``kernbench._argv``); ``run`` executes the same
command line as the executable, through the same code, and ``result.json``
is the document ``run --json`` writes for it. Failures raise ``InputError``
(exit status 2: bad options or files) or ``RunError`` (1: the run failed)
carrying kernbench's own message.
"""

import json
import os
import sys
import tempfile
import threading

from . import _argv
from ._kernbench import git_hash, version  # noqa: F401  (re-exported)
from . import _kernbench
from ._result import Result, table

__all__ = ["run", "sweep", "load_machine", "cli", "list_components", "Result", "Sweep",
           "Error", "InputError", "RunError", "version", "git_hash"]


class Error(Exception):
    """A kernbench command that failed: ``exit_code`` and kernbench's message
    (``str(e)``: what the CLI prints after ``kernbench: error: ``)."""

    def __init__(self, message, exit_code):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


class InputError(Error, ValueError):
    """Exit status 2: bad input (an unknown option, a bad value, a missing or
    malformed topology file)."""


class RunError(Error, RuntimeError):
    """Exit status 1: the run failed (a simulation error, a kernel that threw
    or stalled, an output that could not be written)."""


def _error(exit_code, message):
    if exit_code == 2:
        return InputError(message, exit_code)
    if exit_code == 1:
        return RunError(message, exit_code)
    return Error(message, exit_code)


# Descriptor 1 is process-wide: one captured command at a time.
_stdout = threading.RLock()


def _call(args, capture=None, invocation=None, tee_stderr=True):
    """Runs ``kernbench ARGS...`` here: ``(exit status, message or None)``; a
    failure's message is kernbench's (an exception's text, or what the run
    wrote on standard error when it ended with exit status 1 by itself)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, ValueError):
            pass
    main = threading.current_thread() is threading.main_thread()
    if invocation is None:
        invocation = ["kernbench", *args]
    code, message, err = _kernbench.call(list(args), capture, list(invocation), main,
                                         tee_stderr)
    if message is None and code not in (0, 3) and err:
        message = _message_of(err)
    return code, message


def _message_of(err):
    """What a run wrote on standard error, as a message: progress lines and
    the "kernbench: error: " prefix left out."""
    lines = [ln[len("kernbench: error: "):] if ln.startswith("kernbench: error: ") else ln
             for ln in err.splitlines()]
    lines = [ln for ln in lines if ln.strip() and " s: simulated " not in ln]
    return "\n".join(lines) or None


def _check_options(options):
    """What a run in this process cannot do (the CLI can)."""
    procs = options.get("procs")
    if procs not in (None, 1, "1"):
        raise InputError(f"--procs {procs}: the Python module runs the machine in this process "
                         "(--procs starts kernbench processes); run the CLI", 2)
    for key in ("json", "csv"):
        if options.get(key) == "-":
            raise InputError(f"--{key} -: standard output is Python's; give a file name", 2)


def _kernel_lib_options(options):
    """``kernel_lib`` less the libraries this process has loaded already (a
    library loads once per process; its kernels stay)."""
    out = dict(options)
    for key in ("kernel_lib", "kernel_libs"):
        value = out.get(key)
        if value is None:
            continue
        paths = value if isinstance(value, (list, tuple)) else [value]
        loaded = _kernbench.loaded_kernel_libraries()
        out[key] = [p for p in paths
                    if os.path.normpath(os.path.abspath(os.fspath(p))) not in loaded]
    return out


def _read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def _captured(args, folder, echo):
    """Runs the command line ``args`` in this process, its text report kept
    in ``folder`` (printed with ``echo``); ``(exit status, text or None)``,
    or the failure raised."""
    text_path = None if echo else os.path.join(folder, "report.txt")
    with _stdout:
        code, message = _call(args, text_path)
    text = _read(text_path) if text_path and os.path.exists(text_path) else None
    if message is not None:
        raise _error(code, message)
    return code, text


def run(topology=None, *, echo=False, **options):
    """``kernbench run`` with ``options`` (its CLI options as keywords, e.g.
    ``M=512``, ``kernel="softmax"``, ``args={"rows": 64}``, ``threads=2``,
    ``set={"cube.hbm.bandwidth_gbps": 256}``, ``verify=True``).

    ``topology``: a topology file (YAML or JSON), a machine dict, or a
    result (its ``machine``); default: config/topology.yaml. ``echo``: print
    the text report on standard output instead of keeping it in
    ``result.text``. Returns a ``Result``; raises ``InputError`` or
    ``RunError``."""
    _check_options(options)
    options = _kernel_lib_options(options)
    with tempfile.TemporaryDirectory(prefix="kernbench-py-") as folder:
        args = ["run", *_argv.topology_args(topology, folder), *_argv.options_args(options)]
        json_path = options.get("json")
        if json_path is None:
            json_path = os.path.join(folder, "run.json")
            args += ["--json", json_path]
        code, text = _captured(args, folder, echo)
        if code not in (0, 3):
            raise _error(code, f"kernbench run exited with status {code}")
        with open(json_path, encoding="utf-8") as f:
            doc = json.load(f)
    return Result(doc, code, text, args)


def cli(*args, echo=False):
    """Any kernbench command line, in this process: ``cli("list-kernels")``.
    Returns ``(exit status, text)`` (text None with ``echo=True``); a failure
    raises. ``sweep`` and ``--procs`` start processes: use ``sweep()`` and the
    CLI."""
    args = [_argv.text(a) for a in args]
    if args and args[0] == "sweep":
        raise InputError("sweep: starts kernbench processes; use kernbench.sweep()", 2)
    if "--procs" in args and args[args.index("--procs") + 1:][:1] != ["1"]:
        raise InputError("--procs: the Python module runs in this process; run the CLI", 2)
    with tempfile.TemporaryDirectory(prefix="kernbench-py-") as folder:
        return _captured(args, folder, echo)


def load_machine(source=None, set=None):  # noqa: A002  (the CLI's --set)
    """The machine as a dict: a topology file (YAML or JSON), a result of
    ``run --json`` (its ``machine``) or a ``Result``; default: the default
    topology. ``set``: ``--set`` overrides applied to it. The dict is a
    topology: ``run(topology=d)`` builds that machine."""
    if source is not None and not isinstance(source, (str, os.PathLike)):
        machine = _argv.machine_of(source)
        if not set:
            return json.loads(json.dumps(machine))
        with tempfile.TemporaryDirectory(prefix="kernbench-py-") as folder:
            return load_machine(_argv.topology_args(machine, folder)[1], set)
    sets = _argv.keyed("--set", set)[1::2] if set else []
    doc, message = _kernbench.machine_json(os.fspath(source) if source else "", sets)
    if message is not None:
        raise InputError(message, 2)
    return json.loads(doc)


def list_components():
    """Every node kind, its impls and config keys (``list-components --json``)."""
    _, text = cli("list-components", "--json")
    return json.loads(text)


from ._sweep import Sweep, sweep  # noqa: E402  (uses the names above)
