"""dpgossip.account(path="local", radius=R) against `dpgossip account --path
local --radius R --format csv`, and never below the exact accountant."""

import numpy as np
import pytest

import dpgossip

GRAPH = "barabasi:n=50,m=2,seed=4"


def test_local_matches_cli_and_bounds_exact(cli):
    got = dpgossip.account(GRAPH, rounds=5, trust=["pndp", "ldp"], attackers=[0, (3, 9)],
                           sensitivity="exact", path="local", radius=2)
    want = cli.csv("account", "--generate", GRAPH, "-T", "5", "--trust", "pndp,ldp", "-a", "0",
                   "-a", "3+9", "--sensitivity", "exact", "--path", "local", "--radius", "2")
    assert list(got.columns) == list(want.columns)
    assert list(got["victim"]) == list(want["victim"])
    np.testing.assert_array_equal(got["mu"].to_numpy(float), want["mu"].to_numpy(float))
    assert set(got["path"]) == {"local:radius=2"}
    assert got.attrs["path"] == "local" and got.attrs["radius"] == 2
    assert got["distance"].max() <= 2
    exact = dpgossip.account(GRAPH, rounds=5, trust=["pndp", "ldp"], attackers=[0, (3, 9)],
                             sensitivity="exact", path="structured")
    key = ["attackers", "trust", "victim"]
    both = got.merge(exact, on=key, suffixes=("_local", "_exact"))
    assert len(both) == len(got)
    assert (both["mu_local"] >= both["mu_exact"] * (1 - 1e-9)).all()
    # The lower end: the CLI's numbers, never above the exact value (the
    # library test derives the 1e-9: whitening at pivots >= 1e-11).
    np.testing.assert_array_equal(got["mu_lower"].to_numpy(float),
                                  want["mu_lower"].to_numpy(float))
    assert (both["mu_lower_local"] <= both["mu_exact"] * (1 + 1e-9)).all()
    assert both["mu_lower_exact"].isna().all()  # not computed on the structured path


def test_tightness_matches_cli():
    got = dpgossip.account(GRAPH, rounds=5, trust="pndp", attackers=0, sensitivity="exact",
                           path="local", tightness=2.0)
    assert got.attrs["tightness_met"] in (True, "true")
    assert (got["mu"] <= 2.0 * got["mu_lower"]).all()
    radius = got.attrs["radius"]
    assert set(got["path"]) == {f"local:radius={radius}"}


def test_tightness_on_the_observer_ball():
    # Zip-DL is bounded on the observer path's ball, which computes
    # mu_lower too: --tightness grows it (Florentine is covered at radius 4).
    got = dpgossip.account("florentine", rounds=4, trust="pndp", attackers=0,
                           sensitivity="exact", path="local", tightness=1.01, protocol="zipdl")
    assert got.attrs["tightness_met"] in (True, "true")
    assert (got["mu_lower"] > 0).all()
    assert (got["mu"] <= 1.01 * got["mu_lower"]).all()


@pytest.mark.parametrize("args,kwargs", [
    (["--path", "local"], dict(path="local")),
    (["--path", "local", "--radius", "0"], dict(path="local", radius=0)),
    (["--radius", "3"], dict(radius=3)),
    (["--path", "local", "--tightness", "0.5"], dict(path="local", tightness=0.5)),
    (["--path", "local", "--radius", "2", "--tightness", "2"],
     dict(path="local", radius=2, tightness=2)),
])
def test_local_errors_are_the_cli_messages(cli, args, kwargs):
    status, message = cli.error("account", "--generate", "florentine", "-T", "4", "--trust",
                                "pndp", "-a", "0", *args)
    with pytest.raises(dpgossip.Error) as e:
        dpgossip.account("florentine", rounds=4, trust="pndp", attackers=0, **kwargs)
    assert (str(e.value), e.value.status) == (message, status) and status == 2
