"""dpgossip.run and dpgossip.load against `dpgossip run` on the same
scenario: the same tables, read generically."""

import os

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


def test_sweep_points_are_stacked(tmp_path):
    ini = scenario("figure2-florentine.ini")
    res = dpgossip.run(ini, {"simulation.rounds": 3, "sweep.protocol.sigma": [1, 2]},
                       out=tmp_path / "sweep", threads=1)
    points = [k for k in res if k.startswith("points/") and k.count("/") == 2
              and k.endswith("/privacy")]
    assert len(points) == 2
    stacked = res["points/privacy"]
    assert len(stacked) == sum(len(res[k]) for k in points)
    assert sorted(set(stacked["point"])) == sorted(k.split("/")[1] for k in points)


def test_load_reads_any_csv(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "anything.csv").write_text("a,b\n1,x\n2,y\n")
    (tmp_path / "sub" / "more.csv").write_text("c\n0.1\n")
    res = dpgossip.load(tmp_path)
    assert list(res["anything"]["a"]) == [1, 2] and res["sub/more"]["c"][0] == 0.1
    assert res.summary is None
    with pytest.raises(FileNotFoundError):
        dpgossip.load(tmp_path / "nope")


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
