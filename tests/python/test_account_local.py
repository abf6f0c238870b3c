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


@pytest.mark.parametrize("args,kwargs", [
    (["--path", "local"], dict(path="local")),
    (["--path", "local", "--radius", "0"], dict(path="local", radius=0)),
    (["--radius", "3"], dict(radius=3)),
    (["--path", "local", "--radius", "1", "--protocol", "decor"],
     dict(path="local", radius=1, protocol="decor")),
])
def test_local_errors_are_the_cli_messages(cli, args, kwargs):
    status, message = cli.error("account", "--generate", "florentine", "-T", "4", "--trust",
                                "pndp", "-a", "0", *args)
    with pytest.raises(dpgossip.Error) as e:
        dpgossip.account("florentine", rounds=4, trust="pndp", attackers=0, **kwargs)
    assert (str(e.value), e.value.status) == (message, status) and status == 2
