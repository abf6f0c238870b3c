"""dpgossip from Python: privacy accounting, Mafalda and scenario runs of the
dpgossip simulator, with numpy and pandas types.

Functions (each mirrors the command of the same name, same checks, same
error messages, same numbers):

    graph(g, ...)        summary of a graph (dict) and its edge list
    account(g, ...)      per-victim privacy: a DataFrame, one row per
                         (trust, attacker set, victim)
    mafalda(g, ...)      Mafalda's noise correlation C (numpy) and the losses
    train(g, ...)        trains a model: per-(round, node) metrics, their
                         means per round and per-node privacy (DataFrames)
    run(scenario, ...)   runs a scenario file, returns load(results folder)
    load(results_dir)    the tables of a results folder, one per name

A graph ``g`` is a generator spec (``"florentine"``, ``"erdos:n=100,p=0.2,
seed=1"``), a ``pathlib.Path`` to an edge list, a networkx or igraph graph,
or an (m, 2) integer array of edges (with ``nodes=`` for the node count).

Errors raise ``dpgossip.Error`` (``UsageError``, also a ``ValueError``, for a
bad argument) with the command line's message. Long calls release the GIL;
Ctrl-C cancels them (KeyboardInterrupt): simulated runs at their next event,
scenario points, structured accountings between attacker sets, mafalda's
optimizers at every iteration. The cancel flag is
process-wide: Ctrl-C stops every call in flight, in any thread.

Like the command line, the library runs OpenBLAS single-threaded (results
do not depend on the core count); numpy on the same OpenBLAS does too once
a dpgossip function was called. Protocol plugins: every function that
runs a protocol (``account``, ``train``, ``audit``, ``run``) takes
``plugins=`` and finds a protocol name in ``DPGOSSIP_PLUGIN_PATH``, as the
command does; a plugin is seen only by the calls that load or find it.

Install: ``make install``, then ``pip install --no-build-isolation --no-index
./python`` (offline, over Debian's python3-setuptools, -cffi, -numpy and
-pandas; in a venv made with ``--system-site-packages``), or use the copy
``make install`` puts in Debian's dist-packages. The package finds
libdpgossip beside the installed ``dpgossip`` command on PATH;
``DPGOSSIP_LIBRARY`` overrides its path.
"""

import json
import math
import numbers
import os
import tempfile
import warnings
from dataclasses import dataclass, field

import numpy as np

try:
    import pandas as _pd
except ImportError:  # numpy structured arrays instead
    _pd = None

from ._lib import (Error, UsageError, INT_MISSING, Strings, call, ffi, integer, lib, real,
                   table_columns)
from ._results import Results, load
from . import _progress, _torch

__all__ = ["graph", "account", "audit", "mafalda", "train", "run", "load", "Error", "UsageError",
           "MafaldaResult", "TrainResult", "Results"]
__version__ = "0.1.0"


def _blas_note():
    """The command line's stderr note when OpenBLAS runs a kernel without
    AVX2 on a CPU that has AVX2 or AVX-512 (dpg_blas_note), once, as a
    warning; DPGOSSIP_BLAS_NOTE=0 silences it."""
    fn = getattr(lib, "dpg_blas_note", None)  # None: a library older than the note
    note = fn() if fn is not None else ffi.NULL
    if note != ffi.NULL:
        warnings.warn(ffi.string(note).decode(), RuntimeWarning, stacklevel=3)


_blas_note()


# ---- Graphs ------------------------------------------------------------------

def _networkx_edges(g, ignore_weights):
    """The edges of a networkx graph as the command line reads a file: a
    directed graph is refused (gossip is undirected: say how it is meant),
    unequal edge weights are refused unless @ignore_weights (the gossip
    matrices use the structure alone), the repeated edges of a multigraph
    are merged with a warning."""
    if g.is_directed():
        raise UsageError("graph: a directed networkx graph: gossip needs an undirected one; "
                         "pass g.to_undirected() (an edge in either direction links both "
                         "nodes)", 2)
    index = {u: i for i, u in enumerate(g.nodes)}  # nodes in G.nodes order
    first = None
    for u, v, w in g.edges(data="weight", default=1.0):
        if first is None:
            first = w
        elif not ignore_weights and not (w == first):  # a NaN differs from everything
            raise UsageError(
                f"graph: edge ({u!r}, {v!r}): edge weight {w!r} differs from {first!r}: the "
                "gossip matrices (uniform, metropolis, maxdegree) are built from the graph's "
                "structure and cannot use edge weights; pass ignore_weights=True to use the "
                "structure alone, or give equal weights", 2)
    if ignore_weights and first is not None and any(
            not (w == first) for _, _, w in g.edges(data="weight", default=1.0)):
        warnings.warn("dpgossip: edge weights ignored (ignore_weights=True): the gossip "
                      "matrix is built from the structure", stacklevel=4)
    e = np.array([(index[u], index[v]) for u, v in g.edges()], dtype=np.int64).reshape(-1, 2)
    if g.is_multigraph():
        pairs = {(min(a, b), max(a, b)) for a, b in e.tolist()}
        repeated = len(e) - len(pairs)
        if repeated:
            warnings.warn(f"dpgossip: {repeated} duplicate edge{'s' if repeated > 1 else ''} "
                          "of the multigraph merged (gossip uses each link once)",
                          stacklevel=4)
    return e


def _node_names(nodes):
    """The users' names of nodes 0..n-1 (a networkx graph's nodes, an igraph
    graph's 'name' attribute): None when they are exactly the ints 0..n-1 in
    order (node u is u, as before labels), else the list itself."""
    nodes = list(nodes)
    if all(isinstance(u, (int, np.integer)) and not isinstance(u, bool) and int(u) == i
           for i, u in enumerate(nodes)):
        return None
    return nodes


def _edges_of(g, ignore_weights=False):
    """(edges as a uint32 (m, 2) array, node count or 0, node names or None)
    of a networkx or igraph graph or an edge array; None for anything else."""
    if hasattr(g, "get_edgelist") and hasattr(g, "vcount"):  # igraph
        e = np.asarray(g.get_edgelist(), dtype=np.int64).reshape(-1, 2)
        vs = getattr(g, "vs", None)  # an igraph-like graph may have no vertex sequence
        names = vs["name"] if vs is not None and "name" in vs.attributes() else None
        return e, g.vcount(), None if names is None else _node_names(names)
    if hasattr(g, "nodes") and hasattr(g, "edges") and hasattr(g, "number_of_nodes"):
        return _networkx_edges(g, ignore_weights), g.number_of_nodes(), _node_names(g.nodes)
    if isinstance(g, (str, os.PathLike)):
        return None
    e = np.asarray(g)
    if e.ndim == 2 and e.shape[1] == 2 and (e.size == 0 or np.issubdtype(e.dtype, np.integer)):
        return e.astype(np.int64), 0, None
    return None


def _node_text(u):
    """A node as the C side names it: an int's decimal digits, else str()."""
    if isinstance(u, (int, np.integer)) and not isinstance(u, bool):
        return str(int(u))
    return str(u)


def _graph_spec(s, spec, g, lcc, gossip, nodes, ignore_weights=False):
    """Fills the DpgGraphSpec @spec from the Python graph @g. Returns the
    graph's node names as {text: node} (networkx nodes, igraph 'name's)
    when they are not 0..n-1, for _named to give results their nodes back;
    else None."""
    spec.lcc = bool(lcc)
    spec.gossip = s.str(gossip)
    if isinstance(g, os.PathLike):
        spec.path = s.str(g)
        return None
    if isinstance(g, str):
        spec.generate = s.str(g)
        return None
    got = _edges_of(g, ignore_weights)
    if got is None:
        raise TypeError("graph: give a generator spec (str), a pathlib.Path to an edge list, "
                        "a networkx or igraph graph or an (m, 2) integer array of edges, not "
                        f"{type(g).__name__}")
    e, n, names = got
    if e.size and (e.min() < 0 or e.max() >= 2**32 - 1):
        raise UsageError("graph: node ids must be between 0 and 2^32 - 2", 2)
    e = np.ascontiguousarray(e, dtype=np.uint32)
    spec.edges = s.keep(ffi.from_buffer("unsigned[]", e)) if e.size else \
        s.keep(ffi.new("unsigned[]", 1))
    spec.n_edges = e.shape[0]
    spec.n_nodes = n if nodes is None else integer("nodes", nodes, 0, 2**32 - 1)
    if names is None:
        return None
    text = [_node_text(u) for u in names]
    by_text = dict(zip(text, names))
    if len(by_text) != len(text):
        raise UsageError("graph: two nodes have the same name as text "
                         f"({len(text) - len(by_text)} repeated): dpgossip names nodes by "
                         "str(node)", 2)
    spec.labels = s.strv(text)
    return by_text


def _named(cols, names, columns=("victim",)):
    """The columns naming nodes given back the graph's own nodes (@names
    from _graph_spec): labels in, labels out."""
    if names is None:
        return cols
    for c in columns:
        if c in cols:
            got = [names.get(x, x) for x in cols[c].tolist()]
            ints = all(isinstance(x, (int, np.integer)) and not isinstance(x, bool)
                       for x in got)
            cols[c] = np.array(got, dtype=np.int64 if ints and got else object)
    return cols


def graph(g, *, lcc=False, gossip="uniform", exact=False, nodes=None, ignore_weights=False):
    """Summary of a graph, as ``dpgossip graph --format json`` prints it.

    Parameters
    ----------
    g : str, pathlib.Path, networkx.Graph, igraph.Graph or (m, 2) int array
        Generator spec (``"florentine"``, ``"karate"``, ``"erdos:n=100,p=0.05,
        seed=3"``, ``"regular:n=64,d=4"``), edge-list file, graph or edges.
    lcc : bool
        Keep only the largest connected component (nodes renumbered 0..k-1).
    gossip : {"uniform", "metropolis", "maxdegree"}
        Gossip matrix W whose spectral gap is reported.
    exact : bool
        Compute the diameter and spectral gap however long it takes.
    nodes : int, optional
        Node count of an edge array (default: largest id + 1): an integer
        whose graph fits in memory.
    ignore_weights : bool
        Use a networkx graph's structure when its edge weights differ (they
        are refused otherwise: the gossip matrices cannot use them). A
        directed networkx graph is refused; a multigraph's repeated edges
        are merged with a warning.

    Returns
    -------
    dict
        ``nodes``, ``edges``, ``degree`` (``min``, ``mean``, ``max``),
        ``diameter`` (None: infinite or not computed; then
        ``diameter_note``), ``connected``, ``components``, ``gossip``,
        ``spectral_gap`` (0 when disconnected, None when not computed; then
        ``spectral_gap_note``), ``load`` (what loading
        a file dropped, None otherwise), ``labels`` (a labelled file's node
        names, node id u is ``labels[u]``; absent otherwise) and
        ``edge_list``: the (m, 2) uint32
        array of edges (u < v, sorted) as ``--write-edges`` writes them.
    """
    s = Strings()
    spec = ffi.new("DpgGraphSpec *")
    _graph_spec(s, spec, g, lcc, gossip, nodes, ignore_weights)
    cols, attrs, _ = table_columns(call(lib.dpg_graph, spec, int(bool(exact))))
    row = {k: v[0] for k, v in cols.items()}
    out = {"nodes": int(row["nodes"]), "edges": int(row["edges"]),
           "degree": {"min": int(row["degree_min"]), "mean": float(row["degree_mean"]),
                      "max": int(row["degree_max"])},
           "diameter": None if row["diameter"] == INT_MISSING else int(row["diameter"])}
    if row["diameter_note"] is not None:
        out["diameter_note"] = row["diameter_note"]
    out["connected"] = bool(row["connected"])
    out["components"] = int(row["components"])
    out["gossip"] = row["gossip"]
    out["spectral_gap"] = None if math.isnan(row["spectral_gap"]) else float(row["spectral_gap"])
    if row["spectral_gap_note"] is not None:
        out["spectral_gap_note"] = row["spectral_gap_note"]
    out["load"] = None if row["self_loops_dropped"] == INT_MISSING else {
        "self_loops_dropped": int(row["self_loops_dropped"]),
        "duplicate_edges_dropped": int(row["duplicate_edges_dropped"]),
        "renumbered": bool(row["renumbered"])}
    if "labels" in attrs:  # a file's labels: node id u is labels[u], as the command's
        out["labels"] = json.loads(attrs["labels"])
    n_nodes = ffi.new("unsigned *")
    n_edges = ffi.new("size_t *")
    p = call(lib.dpg_graph_edges, spec, n_nodes, n_edges)
    try:
        m = n_edges[0]
        out["edge_list"] = (np.frombuffer(ffi.buffer(p, 8 * m), dtype=np.uint32)
                            .reshape(m, 2).copy() if m else np.zeros((0, 2), np.uint32))
    finally:
        if p != ffi.NULL:
            lib.dpg_free(p)
    return out


# ---- Accounting ----------------------------------------------------------------

def _attacker_args(attackers):
    """--attackers arguments: "all", 3, "0+5", (0, 5) (a collusion set) or a
    list of those (each one accounted)."""
    if attackers is None:
        return []
    if isinstance(attackers, (str, int, np.integer, tuple)):
        attackers = [attackers]  # a tuple is one collusion set, a list a list of sets
    out = []
    for a in attackers:
        if isinstance(a, str):
            out.append(a)
        elif isinstance(a, (int, np.integer)):
            out.append(str(int(a)))
        else:  # a collusion set of node ids or the graph's own nodes
            out.append("+".join(_node_text(x) for x in a))
    return out


def _plugin_paths(s, plugins):
    """``plugins=`` (a path or a list of them) as the NULL-terminated char **
    of the options (NULL when none)."""
    if isinstance(plugins, (str, os.PathLike)):
        plugins = [plugins]
    paths = [os.fspath(p) for p in plugins or []]
    return s.strv(paths) if paths else ffi.NULL


def _write_matrix(C):
    """A T x T numpy C as a temporary CSV file (what mfdsgd:C=FILE reads)."""
    C = np.asarray(C, dtype=np.float64)
    if C.ndim != 2:
        raise UsageError(f"C: a square matrix is needed, got shape {C.shape}", 2)
    fd, path = tempfile.mkstemp(prefix="dpgossip-C-", suffix=".csv")
    with os.fdopen(fd, "w") as f:
        np.savetxt(f, C, fmt="%.17g", delimiter=",")
    return path


def _typed_attrs(attrs):
    out = {}
    for k, v in attrs.items():
        try:
            out[k] = int(v)
        except ValueError:
            try:
                out[k] = float(v) if k not in ("loss", "seed") else v
            except ValueError:
                out[k] = v
    return out


def _warned(attrs, fn):
    """@attrs typed, its "warnings" (what the command line prints on
    stderr, one per line) raised as Python warnings and kept as a list."""
    out = _typed_attrs(attrs)
    ws = out.pop("warnings", "")
    out["warnings"] = [w for w in str(ws).split("\n") if w]
    for w in out["warnings"]:
        warnings.warn(f"dpgossip.{fn}: {w}", stacklevel=3)
    return out


def _frame(cols, attrs, int_missing=()):
    """A DataFrame (numpy structured array without pandas) of @cols."""
    if _pd is None:
        names = list(cols)
        arrays = [cols[n] if cols[n].dtype != object else cols[n].astype(str) for n in names]
        rec = np.rec.fromarrays(arrays, names=names)
        return rec
    df = _pd.DataFrame(cols)
    for c in int_missing:
        if c in df:
            df[c] = _pd.array(np.where(cols[c] == INT_MISSING, 0, cols[c]), dtype="Int64")
            df.loc[cols[c] == INT_MISSING, c] = _pd.NA
    df.attrs.update(attrs)
    return df


def account(graph, *, rounds, trust, attackers, protocol=None, participation_interval=1,
            sensitivity=None, sigma=1.0, clip=1.0, alpha=2.0, delta=1e-6, compare=None,
            path=None, schedule=None, seed=None, mode=None, latency=None, loss=None,
            links=None, lr=None, storage=None, accountant=None, C=None, lcc=False,
            gossip="uniform", nodes=None, radius=None, tightness=None,
            ignore_weights=False, plugins=None):
    """Per-victim privacy guarantees of a decentralized protocol, as
    ``dpgossip account --format csv`` computes them.

    Parameters
    ----------
    graph : str, pathlib.Path, networkx.Graph, igraph.Graph or (m, 2) int array
        Generator spec, edge-list file, graph or edges (see ``dpgossip.graph``).
    rounds : int
        Gradient steps T (Muffliato gossips K rounds per step).
    trust : str or list of str
        Trust models: @TRUST_MODELS@, or a list of them.
    attackers : "all", int, str, tuple or list
        Attacker sets: ``"all"`` (every node in turn, alone), a node id,
        ``"0+5"`` or ``(0, 5)`` (one collusion set), ``"0,5"`` (each alone),
        or a list of these: every set is accounted under every trust model,
        from one run.
    protocol : str, optional
        Any registered protocol spec: ``"dsgd"`` (default),
        ``"muffliato:K=3"``, ``"antipgd"``, ``"mfdsgd:C=sr"``, ``"mafalda"``,
        ``"decor"``, ``"zipdl"``..., a plugin's protocol, or the protocol
        of the only plugin given.
    plugins : str, pathlib.Path or list of them, optional
        Protocol plugin files (``.so``) to load first, as the command's
        ``--protocol-plugin``: their code runs in this process. A plugin is
        seen only by the call that loads it (or finds it in
        ``DPGOSSIP_PLUGIN_PATH``), never by a later call without it.
    C : array_like (T, T), optional
        MF-D-SGD's local noise correlation as a matrix (e.g.
        ``mafalda(...).C``); the protocol defaults to ``"mfdsgd"``.
    participation_interval : int
        Steps b between two uses of a record (divides T; 1: user level).
    sensitivity : {"auto", "bound", "exact"}, optional
        auto (default): the exact SDP value when its estimated extra cost is
        under 1 CPU s, Thm 5.2's bound otherwise (docs/design.md "Which
        sensitivity"); ``attrs["sensitivity"]`` says which was used and
        ``attrs["sensitivity_reason"]`` why.
    sigma, clip, alpha, delta : float
        Noise multiplier, clipping norm, Renyi order of ``rdp`` and delta
        of ``epsilon``.
    compare : {"muffliato"}, optional
        Adds Muffliato's original bound (D-SGD under PNDP) as ``muffliato_rdp``.
    path : {"auto", "structured", "observer", "local"}, optional
        Structured (no simulation) when it describes the run exactly (auto),
        or simulate and account from what each attacker set saw (observer),
        or certified bounds for the victims within ``radius`` hops, from
        that ball alone (local: the ``path`` column reads
        ``"local:radius=R"``; ``mu`` is an upper bound and the
        ``mu_lower`` column a lower one, mu_lower <= exact <= mu; on
        the other paths ``mu_lower`` is NaN).
    radius : int, optional
        ``path="local"``: the hops around the attackers whose victims are
        bounded (>= 1); every node farther away colludes with them.
    tightness : float, optional
        ``path="local"`` without ``radius``: grow the radius from 1 until
        every victim's ``mu / mu_lower <= tightness`` (>= 1), or stop where
        the ball covers the graph, the next radius would take over 600 s
        or is refused for memory; the attributes ``radius``,
        ``tightness_met`` and ``tightness_stopped`` (why, when not met)
        say what happened.
    schedule : str, optional
        Time-varying gossip (default static): @SCHEDULE_KINDS@.
    seed : int, optional
        Seed of the schedule and of the simulated run (default 0).
    mode, latency, loss, links, lr, storage, accountant : optional
        The simulated run's (observer path): gossip mode (``"sync"``,
        ``"deadline:ms=5"``, ``"stale:s=2"``), latency spec, loss
        probability, per-link overrides (``["8:1=constant:ms=1000",
        "2:3=down"]``), learning rate, provenance storage and accountant.
    lcc, gossip, nodes, ignore_weights :
        Graph options (see ``dpgossip.graph``).

    Returns
    -------
    pandas.DataFrame
        One row per (attacker set, trust model, victim), the columns of
        ``dpgossip account --format csv`` and of a scenario's privacy.csv
        (the tidy privacy table): ``collusion`` and ``attackers`` (the
        set's members, ``"0+5"``), ``trust``, ``victim``, ``distance`` (hops
        to the nearest attacker, <NA> when unreachable), ``sensitivity``,
        ``mu``, ``rdp``, ``epsilon`` (inf: unprotected), ``muffliato_rdp``
        (with ``compare``, else NaN), ``status`` (``protected``,
        ``unprotected``, ``unresolved``), ``alpha``, ``delta``, ``path``,
        ``seed``. ``df.attrs`` holds the setting
        (``path``, ``path_reason``, ``nodes``, the simulated run's message
        counters..., ``distance_graph``: the graph the distance counts hops
        in, ``warnings``: what the command line warns about on stderr, also
        raised as Python warnings, e.g. attackers that received nothing). Without pandas: a numpy record array (distance -2**63
        when missing).

    Examples
    --------
    >>> df = dpgossip.account("florentine", rounds=10, trust="pndp", attackers=0,
    ...                       compare="muffliato")
    >>> df.groupby("distance")[["rdp", "muffliato_rdp"]].mean()
    """
    s = Strings()
    o = ffi.new("DpgAccountOptions *")
    lib.dpg_account_options_init(o)
    names = _graph_spec(s, o.graph, graph, lcc, gossip, nodes, ignore_weights)
    c_path = None
    try:
        if C is not None:
            c_path = _write_matrix(C)
            base = protocol or "mfdsgd"
            protocol = f"{base}{',' if ':' in base else ':'}C={c_path}"
        o.protocol = s.str(protocol)
        o.rounds = integer("rounds", rounds)
        o.participation_interval = integer("participation_interval", participation_interval)
        o.trust = s.str(trust if isinstance(trust, str) or trust is None else ",".join(trust))
        att = _attacker_args(attackers)
        o.attackers = s.strv(att) if att else ffi.NULL
        o.sensitivity = s.str(sensitivity)
        o.sigma, o.clip, o.alpha, o.delta = float(sigma), float(clip), float(alpha), float(delta)
        o.compare = s.str(compare)
        o.path = s.str(path)
        o.schedule = s.str(schedule)
        o.seed = s.str(None if seed is None else str(seed))
        o.mode = s.str(mode)
        o.latency = s.str(latency)
        o.loss = s.str(None if loss is None else str(loss))
        if links is not None:
            o.links = s.strv([links] if isinstance(links, str) else list(links))
        o.lr = float("nan") if lr is None else float(lr)
        o.storage = s.str(storage)
        o.accountant = s.str(accountant)
        o.radius = -1 if radius is None else integer("radius", radius, 0)
        o.plugins = _plugin_paths(s, plugins)
        o.tightness = 0.0 if tightness is None else float(tightness)
        cols, attrs, _ = table_columns(call(lib.dpg_account, o))
    finally:
        if c_path is not None:
            os.unlink(c_path)
    return _frame(_named(cols, names), _warned(attrs, "account"), int_missing=("distance",))


# ---- Audits --------------------------------------------------------------------

def _victim_args(victims, names=None):
    """The victims as the command's strings: "all" (or any string, checked
    by the library), an integer, or a list, tuple or 1-D integer array of
    them; UsageError for anything else (a bool, 1.5, a float array), never
    a raw TypeError or ValueError. On a graph with labels (@names not None)
    a non-string victim is a node label, named as the C side names it."""
    if isinstance(victims, np.ndarray):
        if victims.ndim > 1 or (victims.size and not np.issubdtype(victims.dtype, np.integer)):
            raise UsageError(f"victims: node ids are needed, got an array of {victims.dtype} "
                             f"and shape {victims.shape}", 2)
        victims = victims.reshape(-1).tolist()
    elif isinstance(victims, (str, numbers.Number, np.generic)):
        victims = [victims]
    elif not isinstance(victims, (list, tuple, range)):
        raise UsageError(f"victims: a node id, 'all' or a list of node ids is needed, got "
                         f"{victims!r}", 2)
    out = []
    for v in victims:
        if isinstance(v, str):
            out.append(v)
        elif names is not None and not isinstance(v, (bool, np.bool_)):
            out.append(_node_text(v))
        elif isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
            raise UsageError(f"victims: a node id is needed, got {v!r}", 2)
        else:
            out.append(str(integer("victims", v, 0)))
    return out

def audit(graph, *, attackers, victims, rounds=5, trust="pndp", protocol=None, sigma=1.0,
          trials=1000, seed=1, attack=None, dim=None, threads=1, mode=None, latency=None,
          figure=None, participation_interval=1, schedule=None, plugins=None, lcc=False,
          gossip="uniform", nodes=None, ignore_weights=False, loss=None, lr=None):
    """Attacks on simulated runs that confirm or refute the guarantees
    ``account`` prints, as ``dpgossip audit --format csv`` computes them.

    Parameters
    ----------
    graph : str, pathlib.Path, networkx.Graph, igraph.Graph or (m, 2) int array
        Generator spec, edge-list file, graph or edges (see ``dpgossip.graph``).
    attackers : int, str, tuple or list
        Attacker sets as for ``account`` (``0``, ``"0+5"``, ``(0, 5)``...).
    victims : int, "all", list of int or 1-D integer numpy array
        The audited nodes (outside the attacker set).
    rounds : int
        Steps T.
    trust : str or list of str
        A trust model: @TRUST_MODELS@ (default pndp), or a list of them
        (``["ldp", "pndp"]``, as the command's ``--trust ldp,pndp``): one
        table, every set audited under every model; a model listed twice
        is refused.
    protocol : str, optional
        Any registered protocol spec (default ``"dsgd"``, or the protocol of
        the only plugin given).
    sigma : float
        Noise multiplier.
    lr : float, optional
        The step size of the audited run (default: the protocol's, as
        ``account``'s; Zip-DL's noise is in units of it).
    trials : int
        Simulated runs per world (>= 20).
    participation_interval : int
        Steps b between two uses of the victim's record (divides T); the
        canary takes the participation pattern of the exact sensitivity.
    schedule : str, optional
        Time-varying gossip (default static), seeded by ``seed``:
        @SCHEDULE_KINDS@.
    plugins : str, pathlib.Path or list of them, optional
        Protocol plugin files (``.so``) to load first, as the command's
        ``--protocol-plugin``: their code runs in this process (seen by
        this call only, as for ``account``).
    seed : int
        Trial i of world w draws its noise from a seed derived from
        (seed, w, i); the schedule, latencies and losses of every run are
        drawn from ``seed`` itself (as ``account`` draws them).
    attack : {"np", "learned", "reconstruction", "all"}, optional
        Default: every attack that applies (np and learned on protected
        victims, reconstruction on unprotected ones), one row each.
    dim : int, optional
        Synthetic features (default: what the canary needs).
    threads : int
        Threads; the results do not depend on them.
    mode, latency, loss : str, optional
        Gossip mode (``"deadline:ms=5"``, ``"stale:s=2"``), link latency
        (``"constant:ms=10"``, ``"lognormal:mu=3,sigma=0.5"``...) and
        message loss probability: every trial receives the same messages,
        those of ``account``'s run with the same options and seed.
    figure : str or pathlib.Path, optional
        Writes the first np row's empirical trade-off curve over the GDP
        curve of the accounted mu (.svg, .png or .pdf).
    lcc, gossip, nodes, ignore_weights :
        Graph options (see ``dpgossip.graph``).

    Returns
    -------
    pandas.DataFrame
        One row per (attacker set, trust model, victim, attack):
        ``attackers``, ``trust``, ``victim``, ``attack``, ``mu`` (accounted, inf: unprotected),
        ``mu_canary``, ``mu_test``, ``mu_empirical`` with its 95% interval
        ``mu_empirical_low``/``mu_empirical_high``,
        ``mu_clopper_pearson_low``, ``trials``, ``reconstruction_error``,
        ``status`` (``consistent``, ``overstated``, ``exposed``, ``refused``,
        ``partial``). ``df.attrs["overstated"]`` counts the overstated rows;
        when it is positive a RuntimeWarning says so (the command exits 1).

    Examples
    --------
    >>> df = dpgossip.audit("florentine", rounds=4, attackers=0, victims=[1, 8], trials=400)
    >>> df[["victim", "attack", "mu", "mu_empirical_low", "mu_empirical_high"]]
    """
    s = Strings()
    o = ffi.new("DpgAuditOptions *")
    lib.dpg_audit_options_init(o)
    names = _graph_spec(s, o.graph, graph, lcc, gossip, nodes, ignore_weights)
    o.protocol = s.str(protocol)
    o.rounds = integer("rounds", rounds)
    o.trust = s.str(trust if isinstance(trust, str) or trust is None else ",".join(trust))
    att = _attacker_args(attackers)
    o.attackers = s.strv(att) if att else ffi.NULL
    vic = _victim_args(victims, names) if victims is not None else []
    o.victims = s.strv(vic) if vic else ffi.NULL
    o.sigma = real("sigma", sigma)
    o.lr = 0.0 if lr is None else real("lr", lr)
    o.trials = integer("trials", trials)
    o.seed = integer("seed", seed, 0, 2**63 - 1)
    o.attack = s.str(attack)
    o.dim = 0 if dim is None else integer("dim", dim, 1)
    o.threads = integer("threads", threads, 1)
    o.mode = s.str(mode)
    o.latency = s.str(latency)
    o.loss = s.str(loss)
    o.figure = s.str(None if figure is None else os.fspath(figure))
    o.participation_interval = integer("participation_interval", participation_interval)
    o.schedule = s.str(schedule)
    o.plugins = _plugin_paths(s, plugins)
    cols, attrs, _ = table_columns(call(lib.dpg_audit, o))
    cols = _named(cols, names)
    attrs = _warned(attrs, "audit")  # the command's warnings (refused attacks)
    n_over = int(attrs.get("overstated", 0))
    if n_over:
        warnings.warn(f"dpgossip.audit: {n_over} row(s) overstated: an attack reaches a mu "
                      "above the accounted one: the printed guarantee is wrong",
                      RuntimeWarning, stacklevel=2)
    return _frame(cols, attrs)


# ---- Mafalda -------------------------------------------------------------------

@dataclass
class MafaldaResult:
    """What ``dpgossip.mafalda`` returns.

    Attributes
    ----------
    C : numpy.ndarray (T, T)
        Mafalda's optimized local noise correlation C_local (lower
        triangular; what ``dpgossip mafalda --out`` writes).
    losses : pandas.DataFrame
        One row per strategy (mafalda, dp-d-sgd, antipgd, sr, bsr, dmf,
        toeplitz, blt; blt with 4 buffers, as ``dpgossip mafalda``'s default):
        ``loss`` = sens^2 tr(H (C^T C)^-1) and ``sensitivity``, indexed by
        ``strategy``.
    info : dict
        nodes, gossip, workload, rounds, epochs, batches, band, trace_H,
        iterations.
    """
    C: np.ndarray
    losses: object
    info: dict = field(default_factory=dict)

    def __iter__(self):  # C, losses = dpgossip.mafalda(...)
        return iter((self.C, self.losses))


def mafalda(graph, *, epochs, batches, workload=None, band=None, lcc=False, gossip="uniform",
            nodes=None, ignore_weights=False):
    """Mafalda's noise correlation C_local for a graph and a
    (k, b)-participation, with the baselines' losses, as ``dpgossip
    mafalda`` computes them.

    Parameters
    ----------
    graph : str, pathlib.Path, networkx.Graph, igraph.Graph or (m, 2) int array
        A connected graph (see ``dpgossip.graph``; ``lcc=True`` keeps the
        largest component).
    epochs : int
        Participations per record, k.
    batches : int
        Rounds between two participations, b; T = k * b.
    workload : {"post-average", "messages"}, optional
        What the loss measures (default post-average).
    band : int, optional
        Banded C_local: each node keeps its last ``band`` noises (1..T).

    Returns
    -------
    MafaldaResult
        ``.C`` (T x T numpy array), ``.losses`` (DataFrame by strategy),
        ``.info``; unpacks as ``C, losses = dpgossip.mafalda(...)``.
        Feed ``C`` back with ``dpgossip.account(..., C=result.C)``.
    """
    s = Strings()
    o = ffi.new("DpgMafaldaOptions *")
    names = _graph_spec(s, o.graph, graph, lcc, gossip, nodes, ignore_weights)
    o.epochs, o.batches = integer("epochs", epochs), integer("batches", batches)
    o.workload = s.str(workload)
    o.band = -1 if band is None else integer("band", band)
    cols, attrs, matrix = table_columns(call(lib.dpg_mafalda, o))
    losses = _frame(cols, {})
    if _pd is not None:
        losses = losses.set_index("strategy")
    return MafaldaResult(C=matrix, losses=losses, info=_typed_attrs(attrs))


# ---- Training ------------------------------------------------------------------

@dataclass
class TrainResult:
    """What ``dpgossip.train`` returns: the three tables ``dpgossip train``
    writes (``--out FILE``, ``FILE_mean.csv``, ``FILE_privacy.csv``).

    Attributes
    ----------
    metrics : pandas.DataFrame
        One row per (evaluated round, node): ``round``, ``node`` (int64),
        ``train_loss`` (on the node's own records), ``test_loss``,
        ``test_accuracy`` (NaN for regression), ``seed``.
    means : pandas.DataFrame
        One row per evaluated round, the means over the nodes: ``round``,
        ``train_loss``, ``test_loss``, ``test_accuracy``, ``seed``.
    privacy : pandas.DataFrame
        Each victim's guarantee for the whole run, one row per (accounting,
        victim), the columns of ``dpgossip.account``: ``collusion``,
        ``trust``, ``victim``, ``distance``, ``sensitivity``, ``mu``,
        ``rdp``, ``epsilon``, ``muffliato_rdp``, ``status``, ``attackers``,
        ``alpha``, ``delta``, ``path``, ``seed``. Under LDP without
        attackers (the default) every node is a victim and ``collusion``,
        ``attackers`` and ``distance`` are missing. Empty with
        ``trust="none"``.
    info : dict
        The run: ``protocol``, ``nodes``, ``rounds``, ``path`` (of the
        accounting), ``sim_time_s``, ``messages_sent``...

    Unpacks as ``metrics, privacy = dpgossip.train(...)``.
    """
    metrics: object
    means: object
    privacy: object
    info: dict = field(default_factory=dict)

    def __iter__(self):
        return iter((self.metrics, self.privacy))


def _eval_count(option, name, v):
    """``eval_nodes``/``eval_rows`` (named @name) as DpgTrainOptions takes
    them: None the default (0), "all" every one (-1), else a positive
    integer; anything else is the command line's @option error."""
    if v is None:
        return 0
    if isinstance(v, str) and v == "all":
        return -1
    i = integer(name, v)
    if i < 1:
        raise UsageError(f"{option}: '{i}' is neither a positive integer below 2^32 - 1 nor all",
                         2)
    return i


def train(graph, *, dataset, protocol=None, model=None, partition=None, epochs=1, batches=1,
          lr=0.1, sigma=None, clip=1.0, schedule=None, mode=None, latency=None, loss=None,
          compute_ms=0.0, eval_every=0, test_fraction=0.2, seed=None, threads=1, trust=None,
          attackers=None, alpha=2.0, delta=1e-6, lcc=False, gossip="uniform", nodes=None,
          ignore_weights=False, eval_nodes=None, eval_rows=None, criterion=None,
          test_dataset=None, plugins=None, quiet=False):
    """Trains a model with a decentralized protocol and accounts each
    node's privacy, as ``dpgossip train`` does (same checks, same messages,
    same numbers as its three CSV tables).

    Parameters
    ----------
    graph : str, pathlib.Path, networkx.Graph, igraph.Graph or (m, 2) int array
        Generator spec, edge-list file, graph or edges (see ``dpgossip.graph``).
    dataset : str, torch.utils.data.Dataset or (X, y)
        ``"california:PATH"``, ``"csv:PATH[,...]"``, ``"idx:DIR"``,
        ``"synthetic:linear|logistic[,...]"``; with a torch ``model`` also a
        map-style Dataset or a pair of tensors/arrays (X, y), split by
        ``test_fraction`` with the seed unless ``test_dataset`` is given (a
        spec string gives the torch model the very records, split and
        standardization the built-in models get; features come flat).
    protocol : str, optional
        Any registered protocol spec (default ``"dsgd"``, or the protocol of
        the only plugin given; ``"nonprivate"``: D-SGD without noise).
    plugins : str, pathlib.Path or list of them, optional
        Protocol plugin files (``.so``) to load first, as for ``account``.
    model : str or torch.nn.Module, optional
        ``"linear"``, ``"softmax"``, ``"mlp[:hidden=H]"``, ``"cnn[:groups=G]"``
        (default: linear or softmax by task), or a torch module: its
        parameters (float, on the CPU, no buffers) flattened into each
        node's model vector, every node starting from the module's current
        parameters; per-example gradients by functorch, each clipped to
        ``clip`` (the accountant's) and summed, the noise, gossip and
        accounting by the library as for a built-in model.
    criterion : torch loss, optional
        With a torch ``model``: the loss of one example (e.g.
        ``torch.nn.CrossEntropyLoss()``, ``torch.nn.MSELoss()``); also the
        train and test losses of the metrics (accuracy for classification
        losses or integer targets).
    test_dataset : Dataset or (X, y), optional
        With a torch ``model``: the test records (default: split off).
    partition : str or list of index arrays, optional
        Records to nodes: ``"uniform"`` (default), ``"dirichlet:alpha=A"``,
        ``"classes:k=K"``; with a torch ``model``, data given as a Dataset
        or (X, y) and ``test_dataset``, also one sequence of record indices
        per node, in node order (a record may serve several nodes, not one
        node twice; node u's batch j is the j-th of b consecutive slices of
        its list, in the order given).
    epochs, batches : int
        k and b: T = k b local steps, a record used every b steps.
    lr, sigma, clip : float
        Learning rate, noise multiplier (default 1), clipping norm.
    schedule : str, optional
        Time-varying gossip (default static): @SCHEDULE_KINDS@.
    mode, latency, loss : str, optional
        Gossip mode (``"sync"``, ``"deadline:ms=D"``, ``"stale:s=S"``), link
        latency and message loss probability.
    compute_ms : float
        Local compute time per step (simulated).
    eval_every : int
        Evaluate every N steps (and at the end; 0: at the end only).
    test_fraction : float
        Fraction of the records held out for testing, in (0, 1).
    seed : int, optional
        Seed of every random choice (default 0).
    threads : int
        Evaluation threads (results do not depend on it).
    trust : str or list of str, optional
        A trust model: @TRUST_MODELS@ (ldp, the default, reports every
        node's LDP guarantee; the others need ``attackers``), a list, or
        ``"none"``.
    attackers : int, str, tuple or list, optional
        Attacker sets, as for ``dpgossip.account``.
    alpha, delta : float
        Renyi order of ``rdp`` and delta of ``epsilon``.
    lcc, gossip, nodes, ignore_weights :
        Graph options (see ``dpgossip.graph``).
    eval_nodes, eval_rows : int or "all", optional
        Nodes evaluated and test rows each evaluation uses, drawn with the
        seed (default: all up to 10000 nodes, else 1000 nodes on 10000
        rows).
    quiet : bool
        No progress line. Otherwise stderr gets the command's: on a
        terminal one line redrawn ("dpgossip train: 120/800 steps (15%),
        0:12 elapsed, ETA 1:08"), elsewhere (a log, a notebook) that line
        every ``DPGOSSIP_PROGRESS_INTERVAL`` seconds (default 10: a short
        run prints none), naming the phase that runs when it counts
        nothing (building the graph, checking a torch model and its data,
        setting up the run, the evaluation and privacy accounting after the
        last step).

    Returns
    -------
    TrainResult
        ``.metrics``, ``.means``, ``.privacy`` (DataFrames) and ``.info``;
        unpacks as ``metrics, privacy = dpgossip.train(...)``.

    Examples
    --------
    >>> metrics, privacy = dpgossip.train("florentine", dataset="synthetic:linear",
    ...                                   epochs=2, batches=4, eval_every=2)
    >>> metrics.groupby("round").test_loss.mean()
    >>> privacy.set_index("victim").epsilon
    """
    printer = None if quiet else _progress.Printer("train")
    try:
        return _train(printer, graph, dataset, protocol, model, partition, epochs, batches, lr,
                      sigma, clip, schedule, mode, latency, loss, compute_ms, eval_every,
                      test_fraction, seed, threads, trust, attackers, alpha, delta, lcc, gossip,
                      nodes, ignore_weights, eval_nodes, eval_rows, criterion, test_dataset,
                      plugins)
    finally:
        if printer is not None:
            printer.close()  # its line ends before an error or the caller's output


def _progress_callback(s, printer):
    """@printer as the library's DpgProgressFunc (kept alive by @s)."""
    def progress(phase, done, total, _user):
        try:
            printer.library(ffi.string(phase).decode(), int(done), int(total))
        except Exception:  # noqa: BLE001 (a progress line is never worth failing the run)
            pass
    return s.keep(ffi.callback("DpgProgressFunc", progress))


def _train(printer, graph, dataset, protocol, model, partition, epochs, batches, lr, sigma, clip,
           schedule, mode, latency, loss, compute_ms, eval_every, test_fraction, seed, threads,
           trust, attackers, alpha, delta, lcc, gossip, nodes, ignore_weights, eval_nodes,
           eval_rows, criterion, test_dataset, plugins):
    s = Strings()
    o = ffi.new("DpgTrainOptions *")
    lib.dpg_train_options_init(o)
    names = _graph_spec(s, o.graph, graph, lcc, gossip, nodes, ignore_weights)
    o.protocol = s.str(protocol)
    o.schedule = s.str(schedule)
    if printer is not None:
        o.progress = _progress_callback(s, printer)
    torch_task = None
    lists = partition is not None and not isinstance(partition, str)
    if lists and not _torch.is_module(model):
        raise UsageError("partition: index lists go with a torch.nn.Module model (a built-in "
                         "model's records are dealt by a rule: uniform, dirichlet:alpha=A, "
                         "classes:k=K, users:k=K)", 2)
    if _torch.is_module(model):
        if printer is not None:
            printer.phase("checking the torch model and its data")
        torch_task = _torch_task(s, o, model, dataset, criterion, test_dataset, test_fraction,
                                 seed, batches, partition if lists else None)
    elif criterion is not None or test_dataset is not None:
        raise UsageError("criterion and test_dataset go with a torch.nn.Module model", 2)
    else:
        if not isinstance(dataset, (str, os.PathLike)):
            # str(dataset) of arrays is kilobytes of numbers: say what it is.
            raise UsageError(f"dataset: {_describe(dataset)} goes with a torch.nn.Module model; "
                             "a built-in model (model=None, 'linear', 'mlp:...') takes a spec "
                             "string: 'csv:PATH', 'california:PATH', 'idx:DIR' or "
                             "'synthetic:linear' (write X and y to a CSV for csv:)", 2)
        o.dataset = s.str(dataset)
        o.model = s.str(model)
    o.partition = ffi.NULL if lists else s.str(partition)
    o.epochs, o.batches = integer("epochs", epochs), integer("batches", batches)
    o.lr = float(lr)
    # NaN is how the C options say "not given" (sigma 1): a NaN the caller
    # passes must be refused as the command line refuses it, not run.
    o.sigma = float("nan") if sigma is None else float(sigma)
    if sigma is not None and math.isnan(o.sigma):
        raise UsageError(f"sigma: a number >= 0 is needed, got {sigma!r} (leave it out for the "
                         "protocol's default)", 2)
    o.clip = float(clip)
    o.mode = s.str(mode)
    o.latency = s.str(latency)
    o.loss = s.str(None if loss is None else str(loss))
    o.compute_ms = float(compute_ms)
    o.eval_every = integer("eval_every", eval_every)
    o.test_fraction = float(test_fraction)
    o.seed = s.str(None if seed is None else str(seed))
    o.threads = integer("threads", threads)
    o.trust = s.str(trust if isinstance(trust, str) or trust is None else ",".join(trust))
    att = _attacker_args(attackers)
    o.attackers = s.strv(att) if att else ffi.NULL
    o.alpha, o.delta = float(alpha), float(delta)
    o.eval_nodes = _eval_count("--eval-nodes", "eval_nodes", eval_nodes)
    o.eval_rows = _eval_count("--eval-rows", "eval_rows", eval_rows)
    o.plugins = _plugin_paths(s, plugins)
    means_p = ffi.new("DpgTable **")
    privacy_p = ffi.new("DpgTable **")
    if torch_task is None:
        tables = (call(lib.dpg_train, o, means_p, privacy_p), means_p[0], privacy_p[0])
    else:
        task, t = torch_task
        try:
            first = call(lib.dpg_train_task, o, t, means_p, privacy_p)
        except Error:
            if task.exception is not None:  # the callback's own reason first
                raise task.exception from None
            raise
        if task.exception is not None:  # an evaluation that failed
            for p in (first, means_p[0], privacy_p[0]):
                lib.dpg_table_free(p)
            raise task.exception
        tables = (first, means_p[0], privacy_p[0])
    read = []
    try:
        for t in tables:
            read.append(table_columns(t))  # frees t, even when it raises
    finally:
        for t in tables[len(read) + 1:]:
            lib.dpg_table_free(t)
    (cols, attrs, _), (mcols, _, _), (pcols, pattrs, _) = read
    return TrainResult(metrics=_frame(_named(cols, names, ("node",)), {}),
                       means=_frame(mcols, {}),
                       privacy=_frame(_named(pcols, names), _warned(pattrs, "train"),
                                      int_missing=("distance",)),
                       info=_typed_attrs(attrs))


def _describe(x):
    """A short description of a dataset argument: its type, and shape and
    dtype for arrays and (X, y) pairs, never the values."""
    if isinstance(x, (tuple, list)):
        return "(" + ", ".join(_describe(v) for v in x) + ")"
    shape, dtype = getattr(x, "shape", None), getattr(x, "dtype", None)
    if shape is not None:
        return f"{type(x).__name__} of shape {tuple(shape)} and dtype {dtype}"
    return type(x).__name__


def _torch_task(s, o, model, dataset, criterion, test_dataset, test_fraction, seed, batches,
                lists=None):
    """(the _Task, its DpgTask) for a torch model, every input checked
    before any work (the graph's node count read first); @lists the
    caller's per-node index lists or None."""
    n_nodes = ffi.new("unsigned *")
    n_edges = ffi.new("size_t *")
    p = call(lib.dpg_graph_edges, ffi.addressof(o, "graph"), n_nodes, n_edges)
    if p != ffi.NULL:
        lib.dpg_free(p)
    task, n_classes, labels, init, n_test = _torch.prepare(
        model, dataset, criterion, test_dataset, test_fraction, seed, n_nodes[0],
        integer("batches", batches), lists is not None)
    dealt = _torch.partition_lists(lists, n_nodes[0]) if lists is not None else None
    t = s.keep(ffi.new("DpgTask *"))
    _torch.fill_task(s, t, task, n_classes, labels, init, n_test, dealt)
    return task, t


# ---- Scenarios -----------------------------------------------------------------

def _set_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple, np.ndarray)):
        return ";".join(_set_value(x) for x in v)
    return str(v)


def run(scenario, sets=None, *, out=None, threads=None, allow_plugins=False, plugins=None):
    """Runs a scenario file, as ``dpgossip run SCENARIO --set ...``, and
    returns its results folder read by ``dpgossip.load``.

    Parameters
    ----------
    scenario : str or path
        The scenario file (.ini).
    sets : dict, optional
        ``{"section.key": value}`` overrides (``--set``), e.g.
        ``{"simulation.rounds": 20, "sweep.protocol.sigma": [0.5, 1, 2]}``:
        a list value sets a sweep axis.
    out : str or path, optional
        Results folder (default: the scenario's ``[output] dir``).
    threads : int, optional
        Sweep points run in parallel (default: the cores).
    allow_plugins : bool
        Load the scenario's protocol plugin (runs its code).
    plugins : str, pathlib.Path or list of them, optional
        Protocol plugin files (``.so``) to load first, as the command's
        ``--protocol-plugin`` (the scenario names their protocol).

    Returns
    -------
    Results
        A dict of DataFrames, see ``dpgossip.load``. A finished point is
        not run again (the folder is resumed).

    Warns
    -----
    UserWarning
        What ``dpgossip train`` warns about on stderr (e.g. a 0/1 target
        column trained as regression), each once, with how many of the
        sweep's points said it ("dpgossip.run: ... (3 of the sweep's 3
        points)"); filter them with ``warnings.filterwarnings``.
    """
    s = Strings()
    items = None if not sets else [f"{k}={_set_value(v)}" for k, v in sets.items()]
    said = ffi.new("char **")
    p = call(lib.dpg_run, s.str(os.fspath(scenario)), s.strv(items),
             s.str(None if out is None else os.fspath(out)),
             integer("threads", threads or 0, 0, 2**32 - 1),
             int(bool(allow_plugins)), _plugin_paths(s, plugins), said)
    try:
        out_dir = os.fsdecode(ffi.string(p))
        notes = ffi.string(said[0]).decode() if said[0] != ffi.NULL else ""
    finally:
        lib.dpg_free(p)
        lib.dpg_free(said[0])
    for w in notes.split("\n"):
        if w:
            warnings.warn(f"dpgossip.run: {w}", UserWarning, stacklevel=2)
    return load(out_dir)


def _help_from_tables():
    """Writes the library's tables into the help above: the schedule kinds
    (dpg_schedule_kinds, the list of ``dpgossip account --help``) and the
    trust models (dpg_trust_models), so that a kind or a model added to its
    table needs no edit here. A library older than these calls leaves the
    placeholders' words."""
    lists = {"@SCHEDULE_KINDS@": ("dpg_schedule_kinds", "see ``dpgossip account --help``"),
             "@TRUST_MODELS@": ("dpg_trust_models", "ldp, pndp or secldp")}
    for fn in (account, audit, train):
        doc = fn.__doc__
        if doc is None:  # python -OO
            continue
        for mark, (name, fallback) in lists.items():
            call_ = getattr(lib, name, None)
            doc = doc.replace(mark, ffi.string(call_()).decode() if call_ else fallback)
        fn.__doc__ = doc


_help_from_tables()
