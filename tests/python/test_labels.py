"""Node labels from Python: a networkx graph's nodes (strings, or ints other
than 0..n-1) and an igraph graph's 'name's name the attackers and victims,
and results give them back. The reference is the same graph with its nodes
numbered 0..n-1 in G.nodes order (the ids dpgossip computes with): the
numbers must be equal, row for row, with each id replaced by its node."""

import os
import pathlib

import networkx as nx
import numpy as np
import pytest

import dpgossip

NUMBERS = ["distance", "sensitivity", "mu", "rdp", "epsilon"]
EDGES = [("n0", "n1"), ("n1", "n2"), ("n2", "n3"), ("n3", "n0"), ("n0", "n2"), ("n3", "n4")]


def labelled():
    return nx.Graph(EDGES)


def twin(g):
    """@g with node u renamed to its index in g.nodes, and that mapping."""
    index = {u: i for i, u in enumerate(g.nodes)}
    return nx.relabel_nodes(g, index), index


def same_numbers(got, want):
    for c in NUMBERS:
        np.testing.assert_array_equal(got[c].to_numpy(float), want[c].to_numpy(float),
                                      err_msg=c)


def test_networkx_string_labels_account():
    g = labelled()
    t, index = twin(g)
    got = dpgossip.account(g, rounds=6, trust="pndp", attackers=["n0", ("n1", "n3")])
    want = dpgossip.account(t, rounds=6, trust="pndp", attackers=[0, (1, 3)])
    same_numbers(got, want)
    name = {i: u for u, i in index.items()}
    assert list(got.victim) == [name[v] for v in want.victim]
    assert list(got.attackers) == ["n0", "n0", "n0", "n0", "n1+n3", "n1+n3", "n1+n3"]
    assert list(got.bound) == list(want.bound)


def test_networkx_int_labels_stay_ints():
    g = nx.relabel_nodes(labelled(), {f"n{i}": 10 * (i + 1) for i in range(5)})
    got = dpgossip.account(g, rounds=6, trust="pndp", attackers=10)
    want = dpgossip.account(twin(g)[0], rounds=6, trust="pndp", attackers=0)
    same_numbers(got, want)
    assert got.victim.dtype.kind == "i"
    assert list(got.victim) == [20, 30, 40, 50]
    # Before labels, attackers=0 silently meant the first node (10).
    with pytest.raises(dpgossip.UsageError, match="no node of the graph is labelled '0'"):
        dpgossip.account(g, rounds=6, trust="pndp", attackers=0)


def test_zero_to_n_minus_one_is_unchanged():
    """Nodes 0..n-1 in order: no labels, ints as before."""
    g = nx.cycle_graph(5)
    got = dpgossip.account(g, rounds=4, trust="pndp", attackers=0)
    assert got.victim.dtype.kind == "i"
    assert list(got.victim) == [1, 2, 3, 4]


def test_unknown_label_refused():
    with pytest.raises(dpgossip.UsageError, match="labelled 'zz'"):
        dpgossip.account(labelled(), rounds=4, trust="pndp", attackers="zz")


def test_audit_victims_by_label():
    g = labelled()
    got = dpgossip.audit(g, rounds=4, attackers="n0", victims=["n1", "n4"], trials=200, seed=3)
    want = dpgossip.audit(twin(g)[0], rounds=4, attackers=0, victims=[1, 4], trials=200, seed=3)
    assert list(got.victim) == ["n1"] * (len(got) // 2) + ["n4"] * (len(got) // 2)
    np.testing.assert_array_equal(got.mu.to_numpy(float), want.mu.to_numpy(float))
    np.testing.assert_array_equal(got.mu_empirical.to_numpy(float),
                                  want.mu_empirical.to_numpy(float))


def test_igraph_names():
    ig = pytest.importorskip("igraph")
    g = labelled()
    h = ig.Graph()
    h.add_vertices(list(g.nodes))  # sets the 'name' attribute
    h.add_edges(list(g.edges))
    got = dpgossip.account(h, rounds=6, trust="pndp", attackers="n2")
    want = dpgossip.account(g, rounds=6, trust="pndp", attackers="n2")
    same_numbers(got, want)
    assert list(got.victim) == list(want.victim)


def test_file_labels_match_the_command_line(tmp_path):
    """A labelled edge list from Python is the command line's: victims are
    the file's labels (text), the numbers those of the networkx graph with
    the same labels as ints."""
    path = tmp_path / "g.txt"
    path.write_text("20 3\n3 6\n6 7\n7 20\n20 6\n")
    got = dpgossip.account(pathlib.Path(path), rounds=6, trust="pndp", attackers=20)
    assert list(got.victim) == ["3", "6", "7"]
    g = nx.Graph([(20, 3), (3, 6), (6, 7), (7, 20), (20, 6)])
    want = dpgossip.account(g, rounds=6, trust="pndp", attackers=20)
    same_numbers(got, want)
    assert list(want.victim) == [3, 6, 7]


def test_train_privacy_by_label():
    g = labelled()
    common = dict(dataset="synthetic:linear,n=100,d=2", epochs=2, batches=2, trust="pndp",
                  seed=1)
    got = dpgossip.train(g, attackers="n0", **common).privacy
    want = dpgossip.train(twin(g)[0], attackers=0, **common).privacy
    same_numbers(got, want)
    assert list(got.victim) == ["n1", "n2", "n3", "n4"]
    assert list(got.bound) == ["exact"] * 4  # auto: 4 victims at T = 4 cost nothing


def test_train_metrics_by_label():
    """metrics' node column names nodes as privacy's victim does, so that
    pandas joins them; ints other than 0..n-1 stay ints."""
    g = labelled()
    common = dict(dataset="synthetic:linear,n=100,d=2", epochs=2, batches=2, eval_every=2,
                  trust="pndp", seed=1)
    got = dpgossip.train(g, attackers="n0", **common)
    want = dpgossip.train(twin(g)[0], attackers=0, **common)
    name = list(g.nodes)
    assert list(got.metrics.node) == [name[u] for u in want.metrics.node]
    for c in ("round", "train_loss", "test_loss"):
        np.testing.assert_array_equal(got.metrics[c].to_numpy(), want.metrics[c].to_numpy())
    joined = got.metrics.merge(got.privacy, left_on="node", right_on="victim")
    assert sorted(set(joined.node)) == ["n1", "n2", "n3", "n4"]
    ints = nx.relabel_nodes(g, {f"n{i}": 10 * (i + 1) for i in range(5)})
    m = dpgossip.train(ints, attackers=10, **common).metrics
    assert m.node.dtype.kind == "i"
    assert sorted(set(m.node)) == [10, 20, 30, 40, 50]
