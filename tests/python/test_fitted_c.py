"""dpgossip.account of MF-D-SGD with a C fitted to the graph (toeplitz,
blt): the observer path, equal to the command's, and mu = 1/sigma for
every node under LDP (noise calibrated to C's sensitivity)."""

import numpy as np
import pytest

import dpgossip

from test_account import compare


@pytest.mark.parametrize("protocol", ["mafalda:C=toeplitz,band=4", "mfdsgd:C=blt"])
def test_fitted_c_matches_cli_and_closed_form(cli, protocol):
    # The noise is calibrated with Thm 5.2's sensitivity of C: under that
    # kind the LDP mu is 1 / sigma (the exact kind gives a hair less).
    got = dpgossip.account("florentine", rounds=32, participation_interval=8, trust="ldp",
                           attackers=0, protocol=protocol, sigma=2.0, sensitivity="bound")
    compare(cli, got, "--generate", "florentine", "-T", "32", "-b", "8", "--trust", "ldp",
            "-a", "0", "-p", protocol, "--sigma", "2", "--sensitivity", "bound")
    assert got.attrs["path"] == "observer" and len(got) == 14
    np.testing.assert_allclose(got["mu"].to_numpy(float), 0.5, rtol=0, atol=1e-9)
