"""Python arguments the C options cannot hold, and networkx graphs read as
the command line reads a file: clean UsageErrors, never a crash or a
silently changed value."""

import subprocess
import sys
import textwrap
import warnings

import networkx as nx
import numpy as np
import pytest

import dpgossip


@pytest.mark.parametrize("call", [
    lambda: dpgossip.account("florentine", rounds=4.9, trust="pndp", attackers=0),
    lambda: dpgossip.account("florentine", rounds=float("nan"), trust="pndp", attackers=0),
    lambda: dpgossip.account("florentine", rounds=2**31, trust="pndp", attackers=0),
    lambda: dpgossip.account("florentine", rounds="4", trust="pndp", attackers=0),
    lambda: dpgossip.mafalda("florentine", epochs=2.5, batches=2),
    lambda: dpgossip.mafalda("florentine", epochs=2, batches=2, band=1.5),
    lambda: dpgossip.graph(np.array([[0, 1]]), nodes=2**32),
    lambda: dpgossip.graph(np.array([[0, 1]]), nodes=2.5),
    # NaN was the "not given" of the C options: train ran with sigma 1.
    lambda: dpgossip.train("florentine", dataset="synthetic:linear,n=60,d=2", epochs=1,
                           sigma=float("nan")),
])
def test_non_integral_or_out_of_range_numbers_are_refused(call):
    with pytest.raises(dpgossip.UsageError) as e:
        call()
    assert e.value.status == 2


def test_integral_floats_are_the_integers():
    a = dpgossip.account("florentine", rounds=4.0, trust="pndp", attackers=0)
    b = dpgossip.account("florentine", rounds=np.int64(4), trust="pndp", attackers=0)
    assert a.equals(b)


def test_a_huge_node_count_is_refused_before_allocating():
    # Run in a child: before the check, igraph's allocation failure aborted
    # the interpreter itself. The budget is the address-space limit.
    child = textwrap.dedent("""
        import resource
        import numpy as np
        import dpgossip
        resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
        for f in (lambda: dpgossip.graph(np.array([[0, 1]]), nodes=10**9),
                  lambda: dpgossip.account(np.array([[0, 1]]), nodes=10**9, rounds=2,
                                           trust="pndp", attackers=0)):
            try:
                f()
                raise SystemExit("accepted")
            except dpgossip.UsageError as e:
                assert "would need" in str(e) and "give fewer nodes" in str(e), str(e)
        print("refused")
    """)
    p = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0 and p.stdout.strip() == "refused", (p.returncode, p.stderr)


def test_networkx_unequal_weights_are_refused_unless_ignored():
    g = nx.cycle_graph(6)
    nx.set_edge_attributes(g, 1.0, "weight")
    g[0][1]["weight"] = 2.5
    with pytest.raises(dpgossip.UsageError,
                       match=r"edge \(0, 5\): edge weight 1.0 differs from 2.5"):
        dpgossip.graph(g)
    with pytest.raises(dpgossip.UsageError, match="ignore_weights=True"):
        dpgossip.account(g, rounds=2, trust="pndp", attackers=0)
    with pytest.warns(UserWarning, match="edge weights ignored"):
        got = dpgossip.graph(g, ignore_weights=True)
    assert got["edges"] == 6
    g[0][1]["weight"] = float("nan")
    with pytest.raises(dpgossip.UsageError, match="differs"):
        dpgossip.graph(g)
    # Equal weights are the structure: no error, no warning.
    nx.set_edge_attributes(g, 3.0, "weight")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert dpgossip.graph(g)["edges"] == 6


def test_a_directed_networkx_graph_is_refused():
    with pytest.raises(dpgossip.UsageError, match="to_undirected"):
        dpgossip.graph(nx.DiGraph([(0, 1), (1, 2), (2, 0)]))


def test_multigraph_edges_are_merged_with_a_warning():
    g = nx.MultiGraph([(0, 1), (0, 1), (1, 2), (2, 1), (2, 0)])
    with pytest.warns(UserWarning, match="2 duplicate edges of the multigraph merged"):
        got = dpgossip.graph(g)
    assert got["edges"] == 3
    np.testing.assert_array_equal(got["edge_list"], [[0, 1], [0, 2], [1, 2]])


def test_an_array_dataset_without_a_torch_model_says_its_shape_not_its_values():
    """dataset=(X, y) with a built-in model: the message names the arrays'
    shapes and dtypes and the specs a built-in model takes; it used to
    print every value (12 KB for 100 x 3)."""
    X, y = np.arange(300.0).reshape(100, 3), np.zeros(100, dtype=np.int64)
    with pytest.raises(dpgossip.UsageError) as e:
        dpgossip.train("ring:n=4", dataset=(X, y), epochs=1)
    msg = str(e.value)
    assert len(msg) < 600, msg
    assert "ndarray of shape (100, 3) and dtype float64" in msg
    assert "ndarray of shape (100,) and dtype int64" in msg
    assert "csv:PATH" in msg
