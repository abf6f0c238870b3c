"""dpgossip.load: the tables of a results folder, one table per name."""

import csv
import json
import os
from collections.abc import Mapping

import numpy as np

try:
    import pandas as _pd
except ImportError:
    _pd = None


class Results(dict):
    """The tables of a results folder: a dict from a table's name (its file
    at the top of the folder without ``.csv``: ``"metrics"``,
    ``"metrics_mean"``, ``"privacy"``; a sweep's also ``"points"``,
    ``"groups"``, ``"aggregate"``) to a DataFrame.

    A sweep's ``metrics``, ``metrics_mean`` and ``privacy`` hold every
    point's rows, after a ``point`` column (the point's folder name) and
    one column per swept key (``"protocol.sigma"``); one point's own folder
    is ``results.points[NAME]``.

    Attributes
    ----------
    dir : str
        The folder (absolute).
    summary : dict or None
        The folder's summary.json, parsed (None when absent).
    points : Mapping
        A sweep's finished points (those with a summary.json), each a
        ``Results`` read when first asked for, by folder name under
        ``points/``; empty for a single run.
    """

    def __init__(self, directory):
        super().__init__()
        self.dir = directory
        self.summary = None
        self.points = _Points(directory)

    def __repr__(self):
        return (f"Results({self.dir!r}, tables={sorted(self)}, "
                f"points={len(self.points)})")

    def __getattr__(self, name):
        """A table as an attribute too (``res.metrics`` is
        ``res["metrics"]``), as ``res.points`` is; an unknown name lists
        the tables there are."""
        if not name.startswith("_") and name in self:
            return self[name]
        raise AttributeError(f"{type(self).__name__} has no attribute or table {name!r} "
                             f"(tables: {', '.join(sorted(self)) or 'none'})")


class _Points(Mapping):
    """The points of a sweep, by folder name, each read on first access."""

    def __init__(self, directory):
        top = os.path.join(directory, "points")
        names = sorted(os.listdir(top)) if os.path.isdir(top) else []
        self._dirs = {n: os.path.join(top, n) for n in names
                      if not n.startswith(".")
                      and os.path.isfile(os.path.join(top, n, "summary.json"))}
        self._read = {}

    def __getitem__(self, name):
        if name not in self._read:
            self._read[name] = load(self._dirs[name])
        return self._read[name]

    def __iter__(self):
        return iter(self._dirs)

    def __len__(self):
        return len(self._dirs)

    def __repr__(self):
        more = ", ..." if len(self) > 4 else ""
        return f"<{len(self)} points: {', '.join(list(self._dirs)[:4])}{more}>"


def _read_csv_numpy(path):
    """A CSV as a numpy record array: numeric columns as float, others str."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        return np.zeros(0)
    header, body = rows[0], rows[1:]
    arrays = []
    for j in range(len(header)):
        vals = [r[j] if j < len(r) else "" for r in body]
        try:
            arrays.append(np.array([float(v) if v != "" else np.nan for v in vals]))
        except ValueError:
            arrays.append(np.array(vals, dtype=str))
    return np.rec.fromarrays(arrays, names=header)


# Columns that name attacker sets: text even when every set is one node ("0").
_TEXT = {"collusion": str, "attackers": str}


def _read_csv(path):
    if _pd is None:
        return _read_csv_numpy(path)
    try:
        return _pd.read_csv(path, float_precision="round_trip", dtype=_TEXT)
    except _pd.errors.EmptyDataError:
        return _pd.DataFrame()


def load(results_dir):
    """Reads the tables of a dpgossip results folder (a run's or a sweep's).

    Parameters
    ----------
    results_dir : str or path
        What ``dpgossip run`` printed as ``results:`` (or one point's folder).

    Returns
    -------
    Results
        A dict of DataFrames (numpy record arrays without pandas), one per
        CSV file at the top of the folder, keyed by its name without
        ``.csv``: ``metrics`` (one row per round and node), ``metrics_mean``
        (per round, the means over the nodes), ``privacy`` (per accounting
        and victim), and a sweep's ``points``, ``groups`` and
        ``aggregate``; a sweep's ``metrics``, ``metrics_mean`` and
        ``privacy`` hold every point's rows with its ``point`` and swept
        values. ``.summary`` is the parsed summary.json (None when absent),
        ``.points`` a sweep's points by folder name (each a Results),
        ``.dir`` the folder.

    Examples
    --------
    >>> res = dpgossip.load("results/figure2-florentine")
    >>> res["privacy"].groupby(["trust", "distance"]).rdp.mean()
    >>> res["metrics"].groupby(["protocol.sigma", "round"]).test_loss.mean()  # a sweep
    """
    top = os.path.abspath(os.fspath(results_dir))
    if not os.path.isdir(top):
        raise FileNotFoundError(f"{top}: no such results folder")
    res = Results(top)
    for name in sorted(os.listdir(top)):
        path = os.path.join(top, name)
        if name.endswith(".csv") and not name.startswith(".") and os.path.isfile(path):
            res[name[:-len(".csv")]] = _read_csv(path)
    summary = os.path.join(top, "summary.json")
    if os.path.exists(summary):
        with open(summary) as f:
            res.summary = json.load(f)
    return res
