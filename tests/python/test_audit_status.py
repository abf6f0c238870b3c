"""dpgossip.audit says what dpgossip.account and `dpgossip audit` say (issue
37): its accounted mu is account's on every protocol at a learning rate
other than the default (lr reached the audit only from the command line),
the options account refuses are refused before any run with the command's
status and words, and arguments of the wrong type are UsageErrors (never a
raw TypeError or ValueError, never a bool or a string read as a number),
numpy integer arrays of victims accepted."""

import math

import numpy as np
import pytest

import dpgossip

PROTOCOLS = ["dsgd", "zipdl", "mfdsgd", "antipgd", "decor", "muffliato"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_lr_reaches_the_audit(protocol):
    got = dpgossip.audit("florentine", rounds=6, trust="ldp", attackers=9, victims=1,
                         protocol=protocol, lr=0.3, trials=20, attack="np")
    acc = dpgossip.account("florentine", rounds=6, trust="ldp", attackers=9, protocol=protocol,
                           lr=0.3, sensitivity="exact")
    want = float(acc[acc["victim"] == 1]["mu"].iloc[0])
    # Both are sqrt of the exact sensitivity of the same T x T Gram block,
    # each entry a sum of at most n T K products (n = 15, T = 6, K <= 1
    # gossip rounds per step here) summed in another order: relative error
    # at most n T eps each (Higham's gamma bound), so 2 n T eps apart.
    tol = 2.0 * 15 * 6 * np.finfo(float).eps * want
    assert abs(got["mu"][0] - want) <= tol, (protocol, got["mu"][0], want)


def test_lr_changes_zipdl():
    # Zip-DL's noise is in units of the step: the accounted mu depends on lr,
    # so an audit that ignored lr could not match account at both.
    a = dpgossip.audit("florentine", rounds=6, trust="ldp", attackers=9, victims=1,
                       protocol="zipdl", lr=0.3, trials=20, attack="np")["mu"][0]
    b = dpgossip.audit("florentine", rounds=6, trust="ldp", attackers=9, victims=1,
                       protocol="zipdl", lr=0.05, trials=20, attack="np")["mu"][0]
    assert math.isfinite(a) and math.isfinite(b) and a != b


@pytest.mark.parametrize("kwargs,fragment", [
    (dict(victims=1.5), "victims: a node id is needed, got 1.5"),
    (dict(victims=True), "victims: a node id is needed, got True"),
    (dict(victims=[1, False]), "victims: a node id is needed, got False"),
    (dict(victims=np.array([1.0, 2.0])), "victims: node ids are needed, got an array of float64"),
    (dict(victims=np.array([[1, 2]])), "victims: node ids are needed"),
    (dict(victims={1: 2}), "victims: a node id, 'all' or a list of node ids is needed"),
    (dict(victims=1, sigma="1"), "sigma: a number is needed, got '1'"),
    (dict(victims=1, sigma=True), "sigma: a number is needed, got True"),
    (dict(victims=1, lr="0.1"), "lr: a number is needed"),
    (dict(victims=1, lr=-1.0), "--lr -1: the learning rate must be finite and > 0"),
    (dict(victims=1, figure="f.txt"), r"--figure: unknown extension in 'f.txt'"),
    (dict(victims=1, protocol="muffliato:K=0"), "--protocol: muffliato: parameter K=0 is out of"),
])
def test_bad_arguments(kwargs, fragment):
    with pytest.raises(dpgossip.UsageError, match=fragment.replace("+", r"\+")):
        dpgossip.audit("florentine", rounds=4, attackers=0, trials=20, **kwargs)


def test_numpy_victims(cli):
    got = dpgossip.audit("florentine", rounds=4, attackers=0, victims=np.array([1, 8]),
                         trials=20, attack="np")
    assert list(got["victim"]) == [1, 8]
    one = dpgossip.audit("florentine", rounds=4, attackers=0, victims=np.int64(8), trials=20,
                         attack="np")
    assert list(one["victim"]) == [8]
    assert one["mu"][0] == got["mu"][1]


def test_cli_statuses(cli):
    # The command refuses the same options before any run, exit status 2.
    for extra in (["--figure", "f.txt"], ["-k", "0"], ["-p", "muffliato:K=0"]):
        status, _, err = cli("audit", "--generate", "florentine", "-a", "0", "--victim", "1",
                             "-q", *extra)
        assert status == 2, (extra, err)


def test_unresolved_and_silent_warn(tmp_path):
    # sigma 1e-8: account says unresolved; the audit's rows are refused and
    # the reason is a warning, as the command's stderr.
    with pytest.warns(UserWarning, match="status unresolved"):
        df = dpgossip.audit("florentine", rounds=4, attackers=0, victims=1, trials=20,
                            sigma=1e-8)
    assert list(df["status"]) == ["refused", "refused"]
    # An attacker offline for the whole run: mu = 0, as account reports.
    churn = tmp_path / "churn.txt"
    churn.write_text("0 0\n")
    with pytest.warns(UserWarning, match="receives no message: mu = 0"):
        df = dpgossip.audit("florentine", rounds=4, attackers=0, victims=1, trials=20,
                            schedule=f"churn:{churn}")
    assert list(df["mu"]) == [0.0, 0.0]
