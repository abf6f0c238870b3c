"""dpgossip.graph against `dpgossip graph --format json --write-edges`."""

import os
import pathlib

import networkx as nx
import numpy as np
import pytest

import dpgossip


def cli_graph(cli, tmp_path, *args):
    edges = tmp_path / "edges.txt"
    summary = cli.json("graph", *args, "--write-edges", edges)
    listed = np.loadtxt(edges, dtype=np.uint32, ndmin=2).reshape(-1, 2)
    return summary, listed


@pytest.mark.parametrize("args,kwargs", [
    (("--generate", "florentine"), {}),
    (("--generate", "karate", "--gossip", "metropolis"), {"gossip": "metropolis"}),
    (("--generate", "erdos:n=60,p=0.03,seed=2", "--lcc"), {"lcc": True}),
    (("--generate", "erdos:n=40,p=0.02,seed=1"), {}),  # disconnected: no diameter
])
def test_generated_graph_is_the_cli_one(cli, tmp_path, args, kwargs):
    summary, listed = cli_graph(cli, tmp_path, *args)
    got = dpgossip.graph(args[1], **kwargs)
    edge_list = got.pop("edge_list")
    assert got == summary
    np.testing.assert_array_equal(edge_list, listed)


def test_file_graph_reports_what_loading_dropped(cli, tmp_path, data):
    path = pathlib.Path(data) / "topo-dropped.edges"
    summary, listed = cli_graph(cli, tmp_path, "--graph", path)
    got = dpgossip.graph(path)
    assert got["load"] == {"self_loops_dropped": 2, "duplicate_edges_dropped": 2,
                           "renumbered": True}
    edge_list = got.pop("edge_list")
    assert got == summary
    np.testing.assert_array_equal(edge_list, listed)


def test_networkx_and_edge_array_give_the_file_graph(cli, tmp_path, graphs):
    path = os.path.join(graphs, "florentine.edges")
    summary, listed = cli_graph(cli, tmp_path, "--graph", path)
    g = nx.Graph()
    g.add_nodes_from(range(15))
    g.add_edges_from(map(tuple, listed[::-1]))  # another order: same graph
    for source in (g, listed, listed.tolist()):
        got = dpgossip.graph(source)
        np.testing.assert_array_equal(got.pop("edge_list"), listed)
        got["load"] = summary["load"]  # in memory: nothing was loaded from a file
        assert got == summary


def test_isolated_nodes_of_an_edge_array_need_nodes():
    assert dpgossip.graph(np.array([[0, 1]]))["nodes"] == 2
    got = dpgossip.graph(np.array([[0, 1]]), nodes=4)
    assert got["nodes"] == 4 and got["connected"] is False and got["diameter"] is None


def test_errors_are_the_cli_messages(cli):
    status, message = cli.error("graph", "--generate", "nosuchgraph")
    with pytest.raises(dpgossip.Error) as e:
        dpgossip.graph("nosuchgraph")
    assert str(e.value) == message and e.value.status == status
    status, message = cli.error("graph", "--generate", "florentine", "--gossip", "nope")
    with pytest.raises(dpgossip.UsageError) as e:
        dpgossip.graph("florentine", gossip="nope")
    assert str(e.value) == message and e.value.status == status == 2
    status, message = cli.error("graph", "--graph", "/nonexistent.edges")
    with pytest.raises(dpgossip.Error, match="nonexistent") as e:
        dpgossip.graph(pathlib.Path("/nonexistent.edges"))
    assert str(e.value) == message and e.value.status == status
    with pytest.raises(TypeError):
        dpgossip.graph(3.5)


def test_igraph_like_graph():
    """An igraph.Graph is read through get_edgelist() and vcount()."""
    class FakeIgraph:
        def get_edgelist(self):
            return [(0, 1), (1, 2)]

        def vcount(self):
            return 4

    got = dpgossip.graph(FakeIgraph())
    assert (got["nodes"], got["edges"], got["connected"]) == (4, 2, False)
    np.testing.assert_array_equal(got["edge_list"], [[0, 1], [1, 2]])
