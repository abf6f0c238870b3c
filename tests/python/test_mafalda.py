"""dpgossip.mafalda against `dpgossip mafalda --format json --out C.csv`
and the reference optimum in tests/data/reference."""

import json
import os

import numpy as np
import pytest

import dpgossip


@pytest.mark.parametrize("args,kwargs", [
    (["-k", "3", "-b", "4"], dict(epochs=3, batches=4)),
    (["-k", "2", "-b", "5", "--band", "3", "--workload", "messages", "--gossip", "metropolis"],
     dict(epochs=2, batches=5, band=3, workload="messages", gossip="metropolis")),
])
def test_mafalda_is_the_cli_one(cli, tmp_path, args, kwargs):
    out = tmp_path / "C.csv"
    want = cli.json("mafalda", "--generate", "florentine", *args, "--out", out)
    got = dpgossip.mafalda("florentine", **kwargs)
    np.testing.assert_array_equal(got.C, np.loadtxt(out, delimiter=",", ndmin=2))
    for strategy, loss in want["loss"].items():
        if loss is None:  # not computed (e.g. no Toeplitz fit for the messages workload)
            assert np.isnan(got.losses.loc[strategy, "loss"])
            continue
        assert got.losses.loc[strategy, "loss"] == loss
        assert got.losses.loc[strategy, "sensitivity"] == want["sensitivity"][strategy]
    for key in ("nodes", "gossip", "workload", "rounds", "epochs", "batches", "trace_H",
                "iterations"):
        assert got.info[key] == want[key], key
    C, losses = got  # unpacks like a tuple
    assert C.shape == (want["rounds"],) * 2 and list(losses.index)[0] == "mafalda"


def test_reference_optimum(data):
    with open(os.path.join(data, "reference", "mafalda-florentine-k3-b4.json")) as f:
        ref = json.load(f)
    got = dpgossip.mafalda("florentine", epochs=3, batches=4)
    assert got.info["trace_H"] == pytest.approx(ref["trace_H"], rel=1e-12)
    assert got.losses.loc["mafalda", "loss"] == pytest.approx(ref["loss"]["mafalda (optimal)"],
                                                              rel=1e-6)
    assert got.losses.loc["dp-d-sgd", "loss"] == pytest.approx(ref["loss"]["dp-d-sgd (C=I)"],
                                                               rel=1e-12)
    assert np.allclose(np.triu(got.C, 1), 0)


def test_errors_are_the_cli_messages(cli, data):
    for args, kwargs in (
        (["--generate", "florentine", "-k", "0", "-b", "4"], dict(epochs=0, batches=4)),
        (["--generate", "florentine", "-k", "2", "-b", "4", "--band", "9"],
         dict(epochs=2, batches=4, band=9)),
        (["--generate", "florentine", "-k", "2", "-b", "4", "--workload", "nope"],
         dict(epochs=2, batches=4, workload="nope")),
    ):
        status, message = cli.error("mafalda", *args)
        with pytest.raises(dpgossip.Error) as e:
            dpgossip.mafalda("florentine", **kwargs)
        assert (str(e.value), e.value.status) == (message, status)
    path = os.path.join(data, "mafalda-disconnected.edges")
    status, message = cli.error("mafalda", "--graph", path, "-k", "2", "-b", "2")
    with pytest.raises(dpgossip.Error) as e:
        dpgossip.mafalda(__import__("pathlib").Path(path), epochs=2, batches=2)
    assert (str(e.value), e.value.status) == (message, status)
