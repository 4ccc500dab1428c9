"""kbplot: figures of kernbench results (scripts/plot_sweep.py is its command).

- results.py reads sweep CSVs, `run --csv` files and `run --json` results
  into rows of one table, with the parameters that vary between them and
  the ones that stay fixed;
- units.py names columns and swept keys in words and human units;
- figures.py draws a metric against a parameter (one line per series, the
  machine's peak dashed) and the roofline;
- cli.py parses the command line and writes PNG, SVG and PDF files.
"""
