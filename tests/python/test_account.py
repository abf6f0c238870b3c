"""dpgossip.account against `dpgossip account --format csv` (and the
reference accounting in tests/data/reference)."""

import json
import math
import os

import numpy as np
import pandas as pd
import pytest

import dpgossip

NUMBERS = ["sensitivity", "mu", "rdp", "epsilon"]


def compare(cli, got, *args):
    """@got equals the CLI's tidy CSV for @args, column by column (numbers
    exactly: the CSV holds the same doubles with %.17g)."""
    want = cli.csv("account", *args)
    assert list(got.columns) == list(want.columns)
    for c in want.columns:
        if c == "distance":
            assert [None if pd.isna(d) else int(d) for d in got[c]] == \
                [None if pd.isna(d) else int(d) for d in want[c]]
        elif want[c].dtype.kind in "fi" and got[c].dtype.kind in "fi":
            np.testing.assert_array_equal(got[c].to_numpy(float), want[c].to_numpy(float),
                                          err_msg=c)
        else:
            assert list(got[c].astype(str)) == list(want[c].astype(str)), c
    return want


def test_figure2_setting_matches_cli_and_reference(cli, data):
    # The reference is the paper's Thm 5.2 bound: asked for (auto is exact here).
    got = dpgossip.account("florentine", rounds=10, trust="pndp", attackers=0,
                           compare="muffliato", sensitivity="bound")
    compare(cli, got, "--generate", "florentine", "-T", "10", "--trust", "pndp", "-a", "0",
            "--compare", "muffliato", "--sensitivity", "bound")
    assert got.attrs["path"] == "structured" and got.attrs["nodes"] == 15
    with open(os.path.join(data, "reference", "pndp-florentine-T10-attacker0.json")) as f:
        ref = {r["node"]: r for r in json.load(f)["rows"]}
    for _, row in got.iterrows():
        r = ref[row["victim"]]
        assert row["distance"] == r["distance"]
        # Thm 5.2's reference, capped at the LDP value sqrt(T) / sigma
        # (docs/design.md, "The LDP cap"): mu sqrt(10), RDP(2) 10.
        assert row["sensitivity"] == pytest.approx(min(r["sensitivity"], 10 ** 0.5), rel=1e-9)
        assert row["rdp"] == pytest.approx(min(r["rdp_alpha2"], 10), rel=1e-9)
        assert row["muffliato_rdp"] == pytest.approx(r["muffliato_rdp_alpha2"], rel=1e-9)


def test_several_sets_and_trusts(cli):
    got = dpgossip.account("florentine", rounds=6, trust=["pndp", "ldp"],
                           attackers=[0, (3, 11), "5,7"], sensitivity="exact",
                           participation_interval=2, sigma=2.0, alpha=3.0, delta=1e-5)
    want = compare(cli, got, "--generate", "florentine", "-T", "6", "--trust", "pndp,ldp",
                   "-a", "0", "-a", "3+11", "-a", "5,7", "--sensitivity", "exact", "-b", "2",
                   "--sigma", "2", "--alpha", "3", "--delta", "1e-5")
    assert len(want) == 2 * (14 + 13 + 14 + 14)
    assert set(got["attackers"]) == {"0", "3+11", "5", "7"}


def test_a_tuple_is_one_collusion_set(cli):
    got = dpgossip.account("florentine", rounds=6, trust="pndp", attackers=(3, 11))
    want = compare(cli, got, "--generate", "florentine", "-T", "6", "--trust", "pndp",
                   "-a", "3+11")
    assert len(want) == 13
    assert set(got["attackers"]) == {"3+11"}


def test_all_attackers_and_unreachable_victims(cli):
    edges = np.array([[0, 1], [1, 2], [3, 4]])
    got = dpgossip.account(edges, rounds=3, trust="pndp", attackers="all")
    assert got["distance"].isna().sum() > 0
    assert np.isinf(got.loc[got["distance"].isna(), "epsilon"]).all() is not None


def test_schedule_and_protocols(cli):
    for protocol, extra in (("muffliato:K=2", []), ("antipgd", []), ("mfdsgd:C=sr", [])):
        got = dpgossip.account("florentine", rounds=4, trust="secldp", attackers=[1, 2],
                               protocol=protocol)
        compare(cli, got, "--generate", "florentine", "-T", "4", "--trust", "secldp", "-a", "1",
                "-a", "2", "--protocol", protocol, *extra)
    got = dpgossip.account("karate", rounds=4, trust="pndp", attackers=0, schedule="matching",
                           seed=7)
    compare(cli, got, "--generate", "karate", "-T", "4", "--trust", "pndp", "-a", "0",
            "--schedule", "matching", "--seed", "7")
    assert got.attrs["schedule"] == "matching" and got.attrs["seed"] == 7
    assert got.attrs["distance_graph"] == "static support"
    assert got.attrs["warnings"] == []


def test_attacker_that_receives_nothing_warns():
    """An attacker offline for the whole run (churn from a measured trace):
    eps = 0 for every victim, and a warning saying why, as on stderr."""
    data = os.environ.get("DPG_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..",
                                                       "data"))
    trace = os.path.join(data, "real", "stunner-sessions-100.txt.gz")
    with pytest.warns(UserWarning, match=r"dpgossip.account: trust pndp, attacker 0 received no "
                      r"message carrying a victim's data in the whole run: no round of the "
                      r"schedule"):
        got = dpgossip.account("regular:n=200,d=6,seed=1", rounds=20, participation_interval=10,
                               schedule=f"churn:trace={trace},format=stunner,scale=600", seed=1,
                               attackers=0, trust="pndp")
    assert (got["epsilon"] == 0).all()
    assert len(got.attrs["warnings"]) == 1


def test_observer_path_with_links(cli):
    got = dpgossip.account("florentine", rounds=5, trust=["pndp", "ldp"], attackers=0,
                           mode="deadline:ms=5", latency="constant:ms=1",
                           links=["8:1=constant:ms=1000"], protocol="decor")
    compare(cli, got, "--generate", "florentine", "-T", "5", "--trust", "pndp,ldp", "-a", "0",
            "--mode", "deadline:ms=5", "--latency", "constant:ms=1",
            "--link", "8:1=constant:ms=1000", "--protocol", "decor")
    cli_json = cli.json("account", "--generate", "florentine", "-T", "5", "--trust", "pndp",
                        "-a", "0", "--mode", "deadline:ms=5", "--latency", "constant:ms=1",
                        "--link", "8:1=constant:ms=1000", "--protocol", "decor")
    assert got.attrs["path"] == "observer"
    for key in ("messages_sent", "messages_dropped", "late_discarded", "noise_variables"):
        assert got.attrs[key] == cli_json["run"][key], key


def test_numpy_C_is_the_csv_file(cli, tmp_path):
    C = np.tril(np.ones((6, 6))) + np.eye(6)
    path = tmp_path / "C.csv"
    np.savetxt(path, C, fmt="%.17g", delimiter=",")
    got = dpgossip.account("florentine", rounds=6, trust="pndp", attackers=0, C=C)
    compare(cli, got, "--generate", "florentine", "-T", "6", "--trust", "pndp", "-a", "0",
            "--protocol", f"mfdsgd:C={path}")
    # The optimizer's C straight into the accountant.
    C = dpgossip.mafalda("florentine", epochs=2, batches=3).C
    got = dpgossip.account("florentine", rounds=6, trust="pndp", attackers=0, C=C,
                           participation_interval=3)
    assert (got["status"] == "protected").all()


@pytest.mark.parametrize("args,kwargs", [
    (["-T", "0", "--trust", "pndp", "-a", "0"], dict(rounds=0, trust="pndp", attackers=0)),
    (["-T", "4", "-b", "3", "--trust", "pndp", "-a", "0"],
     dict(rounds=4, participation_interval=3, trust="pndp", attackers=0)),
    (["-T", "4", "--trust", "pndp,nope", "-a", "0"],
     dict(rounds=4, trust=["pndp", "nope"], attackers=0)),
    (["-T", "4", "--trust", "pndp", "-a", "99"], dict(rounds=4, trust="pndp", attackers=99)),
    (["-T", "4", "--trust", "pndp", "-a", "0+0"], dict(rounds=4, trust="pndp", attackers="0+0")),
    (["-T", "4", "--trust", "pndp", "-a", "0", "--protocol", "nope"],
     dict(rounds=4, trust="pndp", attackers=0, protocol="nope")),
    (["-T", "4", "--trust", "pndp", "-a", "0", "--sigma", "-1"],
     dict(rounds=4, trust="pndp", attackers=0, sigma=-1)),
    (["-T", "4", "--trust", "ldp", "-a", "0", "--compare", "muffliato"],
     dict(rounds=4, trust="ldp", attackers=0, compare="muffliato")),
    (["-T", "4", "--trust", "pndp", "-a", "0", "--path", "structured", "--link",
      "1:0=constant:ms=1"],
     dict(rounds=4, trust="pndp", attackers=0, path="structured", links="1:0=constant:ms=1")),
    (["-T", "4", "--trust", "pndp", "-a", "0", "--loss", "0.1"],
     dict(rounds=4, trust="pndp", attackers=0, loss=0.1)),
    (["-T", "4", "--trust", "pndp", "-a", "0", "--link", "1:1=down"],
     dict(rounds=4, trust="pndp", attackers=0, links="1:1=down")),
    (["-T", "4", "--trust", "pndp", "-a", "0", "--schedule", "nope"],
     dict(rounds=4, trust="pndp", attackers=0, schedule="nope")),
])
def test_errors_are_the_cli_messages(cli, args, kwargs):
    status, message = cli.error("account", "--generate", "florentine", *args)
    with pytest.raises(dpgossip.Error) as e:
        dpgossip.account("florentine", **kwargs)
    # Plugin folders are searched relative to the executable: python3's, not dpgossip's.
    cut = lambda m: m.split(" (searched ")[0]  # noqa: E731
    assert (cut(str(e.value)), e.value.status) == (cut(message), status)
    assert isinstance(e.value, ValueError) == (status == 2)


def test_help_is_useful():
    doc = dpgossip.account.__doc__
    for word in ("rounds", "trust", "attackers", "DataFrame", "muffliato_rdp", "Examples"):
        assert word in doc


def test_without_pandas_numpy_record_arrays(cli):
    """pandas absent: record arrays with the same columns and numbers."""
    import subprocess
    import sys
    code = ("import sys; sys.modules['pandas'] = None\n"
            "import dpgossip, numpy as np\n"
            "r = dpgossip.account('florentine', rounds=10, trust='pndp', attackers=0)\n"
            "assert isinstance(r, np.recarray), type(r)\n"
            "print(','.join(r.dtype.names)); print(repr(float(r.rdp[0])), int(r.distance[0]))\n"
            "m = dpgossip.mafalda('florentine', epochs=2, batches=2)\n"
            "print(m.losses.strategy[0], m.C.shape)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[0] == ("collusion,trust,victim,distance,sensitivity,mu,rdp,epsilon,muffliato_rdp,"
                      "status,attackers,alpha,delta,path,seed,mu_lower,bound")
    want = cli.csv("account", "--generate", "florentine", "-T", "10", "--trust", "pndp",
                   "-a", "0")
    assert out[1] == f"{want['rdp'][0]!r} 1"
    assert out[2] == "mafalda (4, 4)"
