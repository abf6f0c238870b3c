"""dpgossip.run and dpgossip.load against `dpgossip run` on the same
scenario: the same tables, read generically."""

import os
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import dpgossip


def scenario(name):
    return os.path.join(os.environ.get("DPG_SOURCE_DIR", "."), "scenarios", name)


def test_run_gives_the_cli_tables(cli, tmp_path):
    ini = scenario("figure2-florentine.ini")
    cli.ok("run", ini, "--set", "simulation.rounds=6", "--out", tmp_path / "cli", "--quiet")
    res = dpgossip.run(ini, {"simulation.rounds": 6}, out=tmp_path / "py", threads=1)
    want = dpgossip.load(tmp_path / "cli")
    assert res.dir == str(tmp_path / "py") and set(res) == set(want)
    assert "privacy" in res and res.summary is not None
    for key in want:
        pd.testing.assert_frame_equal(res[key], want[key], check_exact=True)
    # The CSV itself: byte-identical, whoever ran it.
    for name in os.listdir(tmp_path / "cli"):
        if name.endswith(".csv"):
            assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    priv = res["privacy"]
    assert set(priv["trust"]) == {"pndp", "ldp"} and (priv["rdp"] > 0).all()


def test_sweep_one_table_per_name(tmp_path):
    """A sweep: one metrics, metrics_mean and privacy table, every point's
    rows with its name and swept value; each point's own folder under
    .points, its rows those of the sweep's table."""
    ini = scenario("figure2-florentine.ini")
    res = dpgossip.run(ini, {"simulation.rounds": 3, "sweep.protocol.sigma": [1, 2]},
                       out=tmp_path / "sweep", threads=1)
    assert {"metrics", "metrics_mean", "privacy", "points", "groups", "aggregate"} <= set(res)
    assert not any("/" in k for k in res)
    assert sorted(res.points) == ["sigma=1", "sigma=2"]
    privacy = res["privacy"]
    assert list(privacy.columns[:2]) == ["point", "protocol.sigma"]
    for name, sigma in (("sigma=1", 1), ("sigma=2", 2)):
        point = res.points[name]
        assert point.points == {} and point.summary["sigma"] == sigma
        mine = privacy[privacy["point"] == name].drop(columns=["point", "protocol.sigma"])
        pd.testing.assert_frame_equal(mine.reset_index(drop=True), point["privacy"],
                                      check_exact=True)
        assert (privacy.loc[privacy["point"] == name, "protocol.sigma"] == sigma).all()
    # Twice the noise: every victim's mu halves.
    mu = privacy.pivot_table(index=["collusion", "trust", "victim"], columns="protocol.sigma",
                             values="mu")
    mu = mu[np.isfinite(mu[1]) & (mu[1] > 0)]  # T = 3: far victims are not reached yet
    assert len(mu) >= 20
    np.testing.assert_allclose(mu[1] / mu[2], 2.0, rtol=1e-12)
    assert privacy["attackers"].dtype == object  # a set's name stays text ("0")


def test_metrics_node_is_an_integer(tmp_path):
    """metrics.csv: integer node ids (no "mean" row); the means per round in
    metrics_mean.csv, equal to the nodes' means."""
    ini = tmp_path / "task.ini"
    ini.write_text("[topology]\ngenerate = ring:n=6\n[protocol]\nname = dsgd\nsigma = 0.5\n"
                   "lr = 0.2\n[task]\ndataset = synthetic:linear,n=300,d=3,seed=4\nepochs = 2\n"
                   "batches = 3\neval_every = 2\n[privacy]\ntrust = pndp\n[output]\n"
                   "plots = false\n")
    res = dpgossip.run(ini, out=tmp_path / "d", threads=1)
    metrics, means = res["metrics"], res["metrics_mean"]
    assert metrics["node"].dtype == np.int64
    assert list(means["round"]) == sorted(set(metrics["round"]))
    np.testing.assert_allclose(means.set_index("round")["test_loss"],
                               metrics.groupby("round")["test_loss"].mean(), rtol=1e-13)
    curve = pd.DataFrame(res.summary["curve"]).set_index("round")
    np.testing.assert_array_equal(means.set_index("round")["test_loss"], curve["test_loss"])


def test_load_reads_any_csv(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "anything.csv").write_text("a,b\n1,x\n2,y\n")
    (tmp_path / "sub" / "more.csv").write_text("c\n0.1\n")
    res = dpgossip.load(tmp_path)
    assert list(res["anything"]["a"]) == [1, 2] and set(res) == {"anything"}
    assert res.summary is None and len(res.points) == 0
    with pytest.raises(FileNotFoundError):
        dpgossip.load(tmp_path / "nope")


def test_tables_are_attributes_too(tmp_path):
    """res.metrics as res.points: a table by attribute; an unknown name an
    AttributeError that lists the tables."""
    (tmp_path / "metrics.csv").write_text("round,node\n1,0\n")
    res = dpgossip.load(tmp_path)
    assert res.metrics is res["metrics"]
    assert list(res.metrics["node"]) == [0]
    with pytest.raises(AttributeError, match=r"no attribute or table 'privacy' \(tables: metrics\)"):
        res.privacy


def test_errors_are_the_cli_messages(cli, tmp_path):
    ini = scenario("figure2-florentine.ini")
    status, message = cli.error("run", ini, "--set", "nodot", "--out", tmp_path)
    with pytest.raises(dpgossip.UsageError) as e:
        dpgossip.run(ini, {"nodot": None}, out=tmp_path)
    assert (str(e.value).replace("=None", ""), e.value.status) == (message, status)
    status, _, err = cli("run", ini, "--set", "simulation.rounds=0", "--out", tmp_path)
    with pytest.raises(dpgossip.Error) as e:
        dpgossip.run(ini, {"simulation.rounds": 0}, out=tmp_path)
    assert e.value.status == status == 1 and str(e.value) in err


def test_sweep_says_a_dataset_warning_once(tmp_path):
    """A learning-layer warning (a 0/1 target trained as regression) of a
    scenario arrives as one Python UserWarning, however many points of the
    sweep loaded the data, saying how many did; users filter it as any
    warning."""
    csv = tmp_path / "d.csv"
    csv.write_text("a,b,label\n" + "".join(f"{i / 10},{i % 3},{i % 2}\n" for i in range(40)))
    ini = tmp_path / "s.ini"
    ini.write_text("[topology]\ngenerate = ring:n=4\n[protocol]\nname = dsgd\nsigma = 1\n"
                   f"[task]\ndataset = csv:{csv}\nmodel = linear\nepochs = 1\nbatches = 1\n"
                   "[sweep]\nsimulation.seed = 1..3\n")
    with pytest.warns(UserWarning) as said:
        dpgossip.run(ini, out=tmp_path / "out", threads=2)
    mine = [str(w.message) for w in said if str(w.message).startswith("dpgossip.run:")]
    assert len(mine) == 1, mine
    assert re.fullmatch(r"dpgossip\.run: .*d\.csv: the target column 'label' holds two integer "
                        r"values \(0 and 1\) .*classes=auto.* \(3 of the sweep's 3 points\)",
                        mine[0]), mine[0]
    # A resumed sweep loads nothing and says nothing (a warning would raise here).
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="dpgossip.run")
        dpgossip.run(ini, out=tmp_path / "out", threads=2)
    # Without a sweep: the warning alone.
    one = tmp_path / "one.ini"
    one.write_text(ini.read_text().split("[sweep]")[0])
    with pytest.warns(UserWarning, match=r"dpgossip\.run: .*classes=auto") as said:
        dpgossip.run(one, out=tmp_path / "one", threads=1)
    assert not any("points)" in str(w.message) for w in said)
