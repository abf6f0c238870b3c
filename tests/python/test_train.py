"""dpgossip.train against `dpgossip train` on the same inputs: the three
tables it writes (FILE, FILE_mean.csv, FILE_privacy.csv), value for value,
and the closed forms they must hold."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import dpgossip

SYNTH = "synthetic:linear,n=300,d=4,seed=2"


def read(path):
    return pd.read_csv(path, float_precision="round_trip",
                       dtype={"collusion": str, "attackers": str})


def text(v):
    """A string cell, missing ones (None, NaN) as ""."""
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)


def same(got, want):
    """@got (dpgossip.train's) equals @want (the CLI's CSV read by pandas),
    column by column; numbers exactly (the CSV holds round-trip text)."""
    assert list(got.columns) == list(want.columns)
    assert len(got) == len(want)
    for c in want.columns:
        if got[c].dtype == object:
            assert [text(v) for v in got[c]] == [text(v) for v in want[c]], c
        else:
            np.testing.assert_array_equal(got[c].to_numpy(float, na_value=np.nan),
                                          want[c].to_numpy(float, na_value=np.nan), err_msg=c)


def cli_tables(cli, tmp_path, *args):
    out = tmp_path / "t.csv"
    cli.ok("train", *args, "--out", out, "--quiet")
    return (read(out), read(tmp_path / "t_mean.csv"), read(tmp_path / "t_privacy.csv"))


@pytest.mark.parametrize("extra", [{}, {"schedule": "matching"},
                                   {"mode": "deadline:ms=5", "latency": "constant:ms=1"}])
def test_train_gives_the_cli_tables(cli, tmp_path, extra):
    """Structured (static, time-varying) and observer (asynchronous)
    accounting: the same run, the same tables."""
    args = ["--generate", "florentine", "--dataset", SYNTH, "--epochs", "2", "--batches", "3",
            "--eval-every", "2", "--sigma", "0.7", "--seed", "7", "--trust", "pndp,ldp",
            "-a", "0", "-a", "3+11"]
    for k, v in extra.items():
        args += [f"--{k}", v]
    metrics, means, privacy = cli_tables(cli, tmp_path, *args)
    r = dpgossip.train("florentine", dataset=SYNTH, epochs=2, batches=3, eval_every=2,
                       sigma=0.7, seed=7, trust=["pndp", "ldp"], attackers=[0, (3, 11)], **extra)
    same(r.metrics, metrics)
    same(r.means, means)
    same(r.privacy, privacy)
    # Tidy for pandas: an integer node, the privacy once per victim, not per round.
    assert r.metrics["node"].dtype == np.int64 and metrics["node"].dtype == np.int64
    assert sorted(set(r.metrics["round"])) == [2, 4, 6] and len(r.metrics) == 3 * 15
    assert len(r.privacy) == 2 * 14 + 2 * 13
    assert set(r.privacy["path"]) == {"observer" if "mode" in extra else "structured"}
    assert r.info["nodes"] == 15 and r.info["rounds"] == 6 and r.info["seed"] == 7


def test_ldp_of_every_node_and_means(cli, tmp_path):
    """Default accounting: every node's LDP guarantee, mu = sqrt(T / b) /
    sigma; the means are the nodes' means of each round."""
    metrics, privacy = dpgossip.train("ring:n=8", dataset=SYNTH, epochs=4, batches=2,
                                      eval_every=4, sigma=0.5, seed=3)
    r = dpgossip.train("ring:n=8", dataset=SYNTH, epochs=4, batches=2, eval_every=4, sigma=0.5,
                       seed=3)
    assert list(privacy["victim"]) == list(range(8))
    np.testing.assert_allclose(privacy["mu"], math.sqrt(4) / 0.5, rtol=1e-12)
    assert privacy["collusion"].isna().all() and privacy["distance"].isna().all()
    assert (privacy["status"] == "protected").all() and (privacy["trust"] == "ldp").all()
    grouped = metrics.groupby("round")[["train_loss", "test_loss"]].mean()
    np.testing.assert_allclose(r.means.set_index("round")[["train_loss", "test_loss"]], grouped,
                               rtol=1e-13)
    assert r.means["test_accuracy"].isna().all()  # regression
    want = cli_tables(cli, tmp_path, "--generate", "ring:n=8", "--dataset", SYNTH, "-k", "4",
                      "-b", "2", "--eval-every", "4", "--sigma", "0.5", "--seed", "3")
    same(metrics, want[0])
    same(privacy, want[2])


def test_nonprivate_and_no_accounting(cli, tmp_path):
    r = dpgossip.train("ring:n=4", dataset=SYNTH, protocol="nonprivate")
    assert (r.privacy["status"] == "unprotected").all() and np.isinf(r.privacy["mu"]).all()
    assert r.info["protocol"] == "nonprivate" and r.info["sigma"] == 0
    r = dpgossip.train("ring:n=4", dataset=SYNTH, trust="none")
    assert r.privacy.empty and list(r.privacy.columns)[:3] == ["collusion", "trust", "victim"]
    assert r.info["path"] == "none" and len(r.metrics) == 4
    _, _, privacy = cli_tables(cli, tmp_path, "--generate", "ring:n=4", "--dataset", SYNTH,
                               "--trust", "none")
    assert privacy.empty and list(privacy.columns) == list(r.privacy.columns)


def test_sampled_evaluation_gives_the_cli_tables(cli, tmp_path):
    """eval_nodes and eval_rows bound the evaluation as --eval-nodes and
    --eval-rows do: the same nodes and rows, the same tables."""
    args = ["--generate", "ring:n=12", "--dataset", SYNTH, "--epochs", "2", "--batches", "2",
            "--eval-every", "2", "--seed", "5", "--eval-nodes", "4", "--eval-rows", "20"]
    metrics, means, privacy = cli_tables(cli, tmp_path, *args)
    r = dpgossip.train("ring:n=12", dataset=SYNTH, epochs=2, batches=2, eval_every=2, seed=5,
                       eval_nodes=4, eval_rows=20)
    same(r.metrics, metrics)
    same(r.means, means)
    same(r.privacy, privacy)
    assert len(r.metrics) == 2 * 4 and r.metrics["node"].nunique() == 4
    full = dpgossip.train("ring:n=12", dataset=SYNTH, epochs=2, batches=2, eval_every=2, seed=5,
                          eval_nodes="all", eval_rows="all")
    assert len(full.metrics) == 2 * 12
    # Every test row: the losses of the full evaluation's same nodes.
    every_row = dpgossip.train("ring:n=12", dataset=SYNTH, epochs=2, batches=2, eval_every=2,
                               seed=5, eval_nodes=4, eval_rows="all")
    keyed = full.metrics.set_index(["round", "node"])
    for _, row in every_row.metrics.iterrows():
        assert row["test_loss"] == keyed.loc[(row["round"], row["node"]), "test_loss"]


@pytest.mark.parametrize("kwargs,args", [
    ({"protocol": "muffliato:L=2"}, ["--protocol", "muffliato:L=2"]),
    ({"trust": "pndp"}, ["--trust", "pndp"]),
    ({"attackers": 99, "trust": "pndp"}, ["-a", "99", "--trust", "pndp"]),
    ({"epochs": 0}, ["--epochs", "0"]),
    ({"test_fraction": 1.0}, ["--test-fraction", "1"]),
    ({"loss": 0.1}, ["--loss", "0.1"]),
    ({"dataset": "csv:/nonexistent.csv"}, ["--dataset", "csv:/nonexistent.csv"]),
    ({"eval_nodes": 0}, ["--eval-nodes", "0"]),
    ({"eval_rows": -3}, ["--eval-rows", "-3"]),
])
def test_errors_are_the_cli_messages(cli, tmp_path, kwargs, args):
    base = {"dataset": SYNTH}
    status, message = cli.error("train", "--generate", "ring:n=4", "--dataset", SYNTH, *args,
                                "--out", tmp_path / "e.csv")
    with pytest.raises(dpgossip.Error) as e:
        dpgossip.train("ring:n=4", **{**base, **kwargs})
    assert (str(e.value), e.value.status) == (message, status)
    assert isinstance(e.value, dpgossip.UsageError) == (status == 2)


def test_two_valued_target_warns(tmp_path):
    """A 0/1 label column trained as regression (the default) is warned
    about as a Python warning naming classes=auto; it stays a regression
    (no accuracy), and classes=auto is the classifier, without a word."""
    csv = tmp_path / "d.csv"
    csv.write_text("a,b,label\n" + "".join(f"{i / 10},{i % 3},{i % 2}\n" for i in range(40)))
    with pytest.warns(UserWarning, match=r"dpgossip.train: .*d.csv: the target column 'label' "
                      r"holds two integer values \(0 and 1\) .* classes=auto"):
        r = dpgossip.train("ring:n=4", dataset=f"csv:{csv}", epochs=1, eval_every=1)
    assert r.metrics["test_accuracy"].isna().all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = dpgossip.train("ring:n=4", dataset=f"csv:{csv},classes=auto", epochs=1, eval_every=1)
    assert r.metrics["test_accuracy"].notna().all()
