"""plot_sweep.py's command line: read the results, check the specs, write the files."""
import argparse
import os
import sys

from .figures import Spec, default_spec, figure
from .results import BadInput, Results

FORMATS = ("png", "svg", "pdf")


def die(who, code, msg):
    print(f"{who}: {msg}", file=sys.stderr)
    sys.exit(code)


def parser():
    p = argparse.ArgumentParser(
        prog="plot_sweep.py",
        description="Plot kernbench results: sweep CSVs, `run --csv` files and `run --json` "
                    "results (one point each).",
        epilog="SPEC: METRIC:PARAM (one line per combination of the other parameters), "
               "METRIC:PARAM:SERIES (one line per value of SERIES) or roofline[:PARAM[:SERIES]]. "
               "FILE: .png (300 dpi), .svg or .pdf; any other name is a prefix of a .png and "
               "an .svg. Exit status: 0 plotted, 1 a file could not be written, 2 bad input, "
               "3 matplotlib missing.")
    p.add_argument("results", nargs="+", metavar="RESULT")
    p.add_argument("--plot", action="append", default=[], metavar="SPEC",
                   help="a figure (repeatable; default: achieved_flop_per_s against the first "
                        "parameter, one line per value of the second)")
    p.add_argument("--out", action="append", default=[], metavar="FILE",
                   help="a file of each figure, its format from its extension (repeatable; "
                        "default: the first RESULT less its extension, as .png and .svg)")
    p.add_argument("--who", default="plot_sweep.py", help=argparse.SUPPRESS)
    return p


def outputs(outs, spec, several):
    """The files of one figure: FILE as given, or PREFIX.png and PREFIX.svg;
    with several figures each name gets -SPEC before its extension."""
    files = []
    for out in outs:
        stem, ext = os.path.splitext(out)
        ext = ext[1:].lower()
        if ext not in FORMATS:
            stem, exts = out, ["png", "svg"]
        else:
            exts = [ext]
        if several:
            stem += "-" + spec.name()
        files += [f"{stem}.{e}" for e in exts]
    return files


def import_pyplot(who):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker as ticker
    except ImportError:
        system = "/usr/bin/python3"
        if os.path.realpath(sys.executable) != os.path.realpath(system) \
                and os.path.exists(system) and not os.environ.get("KB_PLOT_REEXEC"):
            os.environ["KB_PLOT_REEXEC"] = "1"
            os.execv(system, [system, os.path.abspath(sys.argv[0])] + sys.argv[1:])
        die(who, 3, "matplotlib is missing: install python3-matplotlib (Debian, Ubuntu: "
                    "apt-get install python3-matplotlib; elsewhere pip install matplotlib) or "
                    "give kernbench the Python that has it with KB_PYTHON=/path/to/python3")
    plt.rcParams["svg.fonttype"] = "none"  # text stays text: editable, searchable
    plt.rcParams["pdf.fonttype"] = 42      # TrueType, editable in a PDF editor
    plt.FuncFormatter, plt.NullFormatter = ticker.FuncFormatter, ticker.NullFormatter
    return plt


def save(who, fig, path):
    """Complete files or none, as kernbench's own outputs: a temporary name
    beside the target, renamed over it."""
    tmp = f"{path}.tmp.{os.getpid()}"
    try:
        fig.savefig(tmp, dpi=300, format=os.path.splitext(path)[1][1:].lower())
        os.replace(tmp, path)
    except OSError as e:
        if os.path.exists(tmp):
            os.remove(tmp)
        die(who, 1, f"cannot write {path}: {e.strerror}")


def main(argv):
    args = parser().parse_args(argv[1:])
    who = args.who
    try:
        res = Results(args.results)
        if not res.ok:
            raise BadInput(f"no successful point in {res.names()} to plot")
        specs = [Spec(s) for s in args.plot] or [default_spec(res)]
        for spec in specs:
            spec.check(res)
    except BadInput as e:
        die(who, 2, str(e))
    outs = args.out or [os.path.splitext(args.results[0])[0]]
    plt = import_pyplot(who)
    written = []
    for spec in specs:
        try:
            fig = figure(plt, res, spec)
        except BadInput as e:
            die(who, 2, str(e))
        for path in outputs(outs, spec, len(specs) > 1):
            save(who, fig, path)
            written.append(path)
        plt.close(fig)
    print(f"{who}: wrote {', '.join(written)}")
    return 0
