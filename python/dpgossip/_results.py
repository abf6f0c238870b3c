"""dpgossip.load: every CSV table of a results folder, whatever they are."""

import csv
import json
import os

import numpy as np

try:
    import pandas as _pd
except ImportError:
    _pd = None


class Results(dict):
    """The tables of a results folder: a dict from the table's path
    relative to the folder, without ``.csv`` (``"privacy"``,
    ``"metrics"``, ``"points/sigma=1/privacy"``), to a DataFrame.

    A sweep's per-point tables are also stacked: ``"points/privacy"`` holds
    every point's ``privacy.csv`` with a first column ``point`` (the point's
    folder name).

    Attributes
    ----------
    dir : str
        The folder (absolute).
    summary : dict or None
        The folder's summary.json, parsed.
    """

    def __init__(self, directory):
        super().__init__()
        self.dir = directory
        self.summary = None

    def __repr__(self):
        return f"Results({self.dir!r}, tables={sorted(self)})"


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


def _read_csv(path):
    if _pd is None:
        return _read_csv_numpy(path)
    try:
        return _pd.read_csv(path, float_precision="round_trip")
    except _pd.errors.EmptyDataError:
        return _pd.DataFrame()


def load(results_dir):
    """Reads every CSV table of a dpgossip results folder (a run's or a
    sweep's), generically: whatever files the folder holds.

    Parameters
    ----------
    results_dir : str or path
        What ``dpgossip run`` printed as ``results:``.

    Returns
    -------
    Results
        A dict of DataFrames (numpy record arrays without pandas) keyed by
        relative path without ``.csv``, sweeps' per-point tables also
        stacked under ``"points/NAME"`` with a ``point`` column; ``.summary``
        is the parsed summary.json (None when absent), ``.dir`` the folder.

    Examples
    --------
    >>> res = dpgossip.load("results/figure2-florentine")
    >>> res["privacy"].groupby(["trust", "distance"]).rdp.mean()
    """
    top = os.path.abspath(os.fspath(results_dir))
    if not os.path.isdir(top):
        raise FileNotFoundError(f"{top}: no such results folder")
    res = Results(top)
    per_point = {}
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if not name.endswith(".csv") or name.startswith("."):
                continue
            path = os.path.join(dirpath, name)
            key = os.path.relpath(path, top)[:-len(".csv")].replace(os.sep, "/")
            table = _read_csv(path)
            res[key] = table
            parts = key.split("/")
            if len(parts) == 3 and parts[0] == "points":
                per_point.setdefault(parts[2], []).append((parts[1], table))
    for base, tables in per_point.items():
        key = f"points/{base}"
        if key in res:  # a file of that name exists: it wins
            continue
        if _pd is not None:
            frames = [t.assign(point=p)[["point"] + list(t.columns)] for p, t in tables]
            res[key] = _pd.concat(frames, ignore_index=True)
    summary = os.path.join(top, "summary.json")
    if os.path.exists(summary):
        with open(summary) as f:
            res.summary = json.load(f)
    return res
