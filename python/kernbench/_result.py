"""A run's result: the ``--json`` document and its tables."""

try:  # optional: tables become DataFrames when pandas is there
    import pandas as _pandas
except ImportError:  # pragma: no cover - pandas is not a dependency
    _pandas = None


def table(rows):
    """``rows`` (a list of dicts) as a pandas DataFrame when pandas imports,
    else as they are."""
    return _pandas.DataFrame(rows) if _pandas is not None else rows


def flatten(obj, prefix=""):
    """Nested dicts -> one dict with dotted keys (``stages.gemm.count``)."""
    out = {}
    for k, v in obj.items():
        if isinstance(v, dict):
            out.update(flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def command_rows(doc):
    """One row per command of every PE (``pes[].commands[]``), with ``pe``."""
    return [{"pe": pe["pe"], **flatten(c)} for pe in doc.get("pes", []) for c in pe["commands"]]


def group_rows(doc, name):
    """``groups.<name>`` (``commands``, ``lanes``, ``links``): one row per
    group, its spreads flattened (``latency_ps.median``, ``busy_ps.max_at``)."""
    return [flatten(g) for g in (doc.get("groups") or {}).get(name, [])]


def unit_rows(doc):
    """One row per node (``units[]``): ``node``, ``events`` and its figures."""
    return [{"node": u["node"], "events": u["events"], **u.get("figures", {})}
            for u in doc.get("units", [])]


def link_rows(doc):
    """One row per link that carried something, from its source's figures
    (``link:<dst>.bytes``, ``.messages``, ``.busy_ps``): ``from``, ``to`` and
    those three. The text report's "bytes over each link"."""
    rows = []
    for u in doc.get("units", []):
        mine = {}
        for key, value in u.get("figures", {}).items():
            if not key.startswith("link:"):
                continue
            dst, _, field = key[len("link:"):].rpartition(".")
            mine.setdefault(dst, {"from": u["node"], "to": dst})[field] = value
        rows += mine.values()
    return rows


class Result:
    """One ``kernbench run``.

    - ``json``: the document ``run --json`` writes (docs/results-schema.md);
    - ``exit_code``: 0, or 3 when ``--verify`` found a mismatch (then ``ok``
      is False); other failures raise instead;
    - ``text``: the text report the CLI prints (None with ``echo=True``);
    - ``argv``: the command line that ran (``kernbench`` + ``argv``);
    - ``commands``, ``units``, ``links``, ``fabric_links``: tables (lists of
      dicts, or DataFrames when pandas is installed); a run of more than 16
      PEs lists every PE only with ``per_pe=True`` (``json["per_pe"]``);
    - ``command_groups``, ``lane_groups``, ``link_groups``: the figures over
      all the PEs, in every run (``groups`` of the JSON).
    """

    def __init__(self, doc, exit_code, text, argv):
        self.json = doc
        self.exit_code = exit_code
        self.text = text
        self.argv = list(argv)

    @property
    def ok(self):
        return self.exit_code == 0

    @property
    def summary(self):
        return self.json["summary"]

    @property
    def machine(self):
        """The machine as the run resolved it (``--set`` applied): pass it,
        or the result itself, as another run's ``topology``."""
        return self.json["machine"]

    def rows(self, name):
        """A table as a list of dicts whatever is installed: ``commands``,
        ``units``, ``links``, ``fabric_links``, ``command_groups``,
        ``lane_groups`` or ``link_groups``."""
        makers = {"commands": command_rows, "units": unit_rows, "links": link_rows,
                  "fabric_links": lambda d: list(d.get("fabric", {}).get("links", [])),
                  "command_groups": lambda d: group_rows(d, "commands"),
                  "lane_groups": lambda d: group_rows(d, "lanes"),
                  "link_groups": lambda d: group_rows(d, "links")}
        if name not in makers:
            raise KeyError(f"{name}: expected one of {', '.join(makers)}")
        return makers[name](self.json)

    @property
    def commands(self):
        """Per command of every PE: ``pe``, ``id``, ``latency_ps``, ...,
        ``stages.<type>.count`` / ``.busy_ps``."""
        return table(self.rows("commands"))

    @property
    def units(self):
        """Per node of the machine: ``node``, ``events`` and its figures."""
        return table(self.rows("units"))

    @property
    def links(self):
        """Per link that carried something: ``from``, ``to``, ``bytes``,
        ``messages``, ``busy_ps``."""
        return table(self.rows("links"))

    @property
    def command_groups(self):
        """Per command number over the PEs: ``id``, ``what``, ``pes``,
        ``latency_ps.min`` / ``.median`` / ``.max`` / ``.max_at``, ..."""
        return table(self.rows("command_groups"))

    @property
    def lane_groups(self):
        """Per unit lane over its nodes (``pe.pe_gemm/gemm``): ``busy_ps.*``,
        ``stall_ps.*``, ``wait_ps.*``, ``stages``, ``bytes``."""
        return table(self.rows("lane_groups"))

    @property
    def link_groups(self):
        """Per (sending group, receiving group) of links: ``bytes.*``,
        ``busy_ps.*``."""
        return table(self.rows("link_groups"))

    @property
    def fabric_links(self):
        """``fabric.links``: the UCIe and inter-SIP links."""
        return table(self.rows("fabric_links"))

    def __getitem__(self, key):
        return self.json[key]

    def __repr__(self):
        s = self.json.get("summary", {})
        return (f"<kernbench.Result exit_code={self.exit_code} end_ps={self.json.get('end_ps')} "
                f"achieved_flop_per_s={s.get('achieved_flop_per_s')}>")
