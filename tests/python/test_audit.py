"""dpgossip.audit against `dpgossip audit --format json` on the same inputs:
the same rows to the last bit (also with participation and a schedule, and
on a protocol plugin: the reused-noise plugin, whose provenance claims a
fresh draw at each step, is reported overstated with a RuntimeWarning), the
figure written (and refused without a protected victim), reconstruction
without noise, and bad arguments as usage errors."""

import json
import math
import os

import pytest

import dpgossip


def _same(a, b):
    return (a is None and math.isnan(b)) or a == b or (math.isinf(b) and a is None)


def test_audit_is_the_cli_one(cli):
    args = ["--generate", "florentine", "-T", "4", "-a", "0+5", "--victim", "1",
            "--victim", "8", "--trials", "60", "--trust", "pndp", "--seed", "4"]
    want = cli.json("audit", *args)["victims"]
    got = dpgossip.audit("florentine", rounds=4, attackers="0+5", victims=[1, 8], trials=60,
                         trust="pndp", seed=4)
    assert len(got) == len(want) == 4
    for (_, row), w in zip(got.iterrows(), want):
        assert row["attackers"] == w["attackers"] == "0+5"
        assert row["victim"] == w["victim"]
        assert row["attack"] == w["attack"]
        assert row["status"] == w["status"] == "consistent"
        assert row["trials"] == w["trials"]
        for k in ("mu", "mu_canary", "mu_test", "mu_empirical", "mu_empirical_low",
                  "mu_empirical_high", "mu_clopper_pearson_low", "reconstruction_error"):
            assert _same(w[k], row[k]), (k, w[k], row[k])
    assert got.attrs["overstated"] == 0


def _same_rows(got, want):
    assert len(got) == len(want)
    for (_, row), w in zip(got.iterrows(), want):
        assert (row["attackers"], row["victim"], row["attack"], row["status"]) == \
            (w["attackers"], w["victim"], w["attack"], w["status"])
        for k in ("mu", "mu_canary", "mu_test", "mu_empirical", "mu_empirical_low",
                  "mu_empirical_high", "mu_clopper_pearson_low", "reconstruction_error"):
            assert _same(w[k], row[k]), (k, w[k], row[k])


def test_participation_and_schedule(cli):
    args = ["--generate", "florentine", "-T", "4", "-b", "2", "--schedule", "exponential",
            "-a", "0", "--victim", "1", "--trials", "60", "--seed", "3"]
    want = cli.json("audit", *args)["victims"]
    got = dpgossip.audit("florentine", rounds=4, participation_interval=2,
                         schedule="exponential", attackers=0, victims=1, trials=60, seed=3)
    _same_rows(got, want)
    assert got["mu_canary"][0] == pytest.approx(got["mu"][0], rel=1e-6)


def test_plugin(cli):
    plugin = os.path.join(os.environ["DPG_BUILD_DIR"], "tests", "plugins", "reused-noise.so")
    args = ["--generate", "florentine", "-T", "4", "-a", "0", "--victim", "8", "--trust", "ldp",
            "--trials", "100", "--protocol-plugin", plugin, "--format", "json"]
    status, out, _ = cli("audit", *args)
    assert status == 1  # overstated
    want = json.loads(out)["victims"]
    with pytest.warns(RuntimeWarning, match="2 row\\(s\\) overstated"):
        got = dpgossip.audit("florentine", rounds=4, attackers=0, victims=8, trust="ldp",
                             trials=100, plugins=plugin)
    _same_rows(got, want)
    assert list(got["status"]) == ["overstated", "overstated"]
    assert got.attrs["protocol"] == "reused-noise"
    assert got.attrs["overstated"] == 2


def test_trust_list_is_the_cli_one(cli):
    """trust=["ldp", "pndp"] is `audit --trust ldp,pndp`: one table, a trust
    column, every set under every model in the command's order, the same
    numbers; a model twice is refused in the command's words."""
    args = ["--generate", "florentine", "-T", "4", "-a", "0", "--victim", "1", "--victim", "8",
            "--trials", "60", "--trust", "ldp,pndp", "--seed", "4"]
    want = cli.json("audit", *args)["victims"]
    got = dpgossip.audit("florentine", rounds=4, attackers=0, victims=[1, 8], trials=60,
                         trust=["ldp", "pndp"], seed=4)
    _same_rows(got, want)
    assert list(got["trust"]) == [w["trust"] for w in want]
    assert list(got["trust"]) == ["ldp"] * 4 + ["pndp"] * 4
    # ldp's mu is pndp's of a neighbour, above it for a victim two hops away.
    ldp8 = got[(got["trust"] == "ldp") & (got["victim"] == 8)]["mu"].iloc[0]
    pndp8 = got[(got["trust"] == "pndp") & (got["victim"] == 8)]["mu"].iloc[0]
    assert ldp8 > pndp8
    # One model: the same column, its rows the list's.
    one = dpgossip.audit("florentine", rounds=4, attackers=0, victims=[1, 8], trials=60,
                         trust="pndp", seed=4)
    assert list(one["trust"]) == ["pndp"] * 4
    assert list(one["mu"]) == list(got["mu"][4:])
    status, message = cli.error("audit", "--generate", "florentine", "-T", "4", "-a", "0",
                                "--victim", "1", "--trust", "pndp,ldp,pndp")
    assert status == 2
    with pytest.raises(dpgossip.UsageError) as e:
        dpgossip.audit("florentine", rounds=4, attackers=0, victims=1, trust=["pndp", "ldp", "pndp"])
    assert str(e.value) == message == "--trust: pndp is listed twice"


def test_figure(tmp_path):
    svg = tmp_path / "tradeoff.svg"
    df = dpgossip.audit("florentine", rounds=3, attackers=0, victims=1, trials=40,
                        attack="np", figure=svg)
    assert list(df["attack"]) == ["np"]
    assert svg.read_text().startswith("<?xml")
    with pytest.raises(dpgossip.Error, match="no protected victim"):
        dpgossip.audit("florentine", rounds=3, attackers=0, victims=1, sigma=0,
                       figure=tmp_path / "none.svg")
    assert not (tmp_path / "none.svg").exists()


def test_reconstruction_without_noise():
    df = dpgossip.audit("florentine", rounds=4, attackers=0, victims=1, trust="ldp", sigma=0)
    assert list(df["attack"]) == ["reconstruction"]
    assert df["status"][0] == "exposed"
    assert df["reconstruction_error"][0] < 1e-8


@pytest.mark.parametrize("kwargs,fragment", [
    (dict(victims=99), "not a node id below 15"),
    (dict(victims=0), "is in the attacker set"),
    (dict(victims=1, trials=5), "--trials >= 20"),
    (dict(victims=1, attack="guess"), "'guess' is not np, learned, reconstruction or all"),
    (dict(victims=1, loss="0.05"), "--loss 0.05: a synchronous run waits for every message"),
    (dict(victims=[]), "--attackers and --victim are required"),
    (dict(victims=1, participation_interval=3), "-b 3: the participation interval must be"),
    (dict(victims=1, schedule="wobbly"), "--schedule wobbly: unknown schedule"),
    (dict(victims=1, plugins="no-such-plugin.so"), "plugins: plugin no-such-plugin.so: no such"),
])
def test_bad_arguments(kwargs, fragment):
    with pytest.raises(dpgossip.UsageError, match=fragment.replace("+", r"\+")):
        dpgossip.audit("florentine", attackers=0, **kwargs)
