"""The examples run: examples/figure2_table.py prints docs/figure2.md's
Florentine rows, examples/train_privacy.py the numbers of an accounting
without training."""

import math
import os
import subprocess
import sys

import dpgossip


def test_figure2_table_example():
    script = os.path.join(os.environ.get("DPG_SOURCE_DIR", "."), "examples", "figure2_table.py")
    out = subprocess.run([sys.executable, script], capture_output=True, text=True, check=True,
                         env=os.environ).stdout
    rows = {int(line.split()[0]): line.split()[1:] for line in out.splitlines()
            if line.strip() and line.split()[0].isdigit()}
    # docs/figure2.md, "Measured gap": distance, pairs, ours, Muffliato, ratio.
    assert rows == {1: ["40", "10", "10", "1"], 2: ["70", "0.946", "10", "10.6"],
                    3: ["64", "0.192", "10", "52.1"], 4: ["30", "0.0331", "9.55", "288"],
                    5: ["6", "0.00556", "6.03", "1.08e+03"]}


def test_installed_package_imports(tmp_path):
    """`make install` (cmake --install) brings a package that finds its
    library relative to itself, wherever the prefix is."""
    build, cmake = os.environ.get("DPG_BUILD_DIR"), os.environ.get("CMAKE_COMMAND")
    if not build or not cmake:
        import pytest
        pytest.skip("DPG_BUILD_DIR/CMAKE_COMMAND not set: run through ctest")
    subprocess.run([cmake, "--install", build, "--prefix", str(tmp_path)], check=True,
                   capture_output=True)
    site = [str(p.parent) for p in tmp_path.glob("lib*/python3*/dist-packages/dpgossip")]
    assert len(site) == 1
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DPGOSSIP_LIBRARY")}
    env["PYTHONPATH"] = site[0]
    out = subprocess.run([sys.executable, "-c",
                          "import dpgossip, dpgossip._lib as l; print(l.LIBRARY); "
                          "print(dpgossip.graph('karate')['nodes'])"],
                         capture_output=True, text=True, check=True, env=env,
                         cwd=tmp_path).stdout.split()
    assert os.path.realpath(out[0]).startswith(str(tmp_path)) and out[1] == "34"


def test_train_privacy_example():
    script = os.path.join(os.environ.get("DPG_SOURCE_DIR", "."), "examples", "train_privacy.py")
    out = subprocess.run([sys.executable, script], capture_output=True, text=True, check=True,
                         env=os.environ).stdout
    lines = out.splitlines()
    assert lines[0] == "florentine: 15 nodes, T = 32 rounds"
    start = lines.index("mean test loss per round")
    losses = [float(line.split()[1]) for line in lines[start + 2:start + 6]]
    assert [int(line.split()[0]) for line in lines[start + 2:start + 6]] == [8, 16, 24, 32]
    assert losses == sorted(losses, reverse=True)  # it learns
    rows = {int(line.split()[0]): line.split()[1:] for line in lines[start + 6:]
            if line.split() and line.split()[0].isdigit()}
    # victims, ldp_epsilon, ldp_mu, pndp_epsilon, pndp_mu per hop distance.
    assert sorted(rows) == [1, 2, 3, 4] and sum(int(r[0]) for r in rows.values()) == 14
    # LDP: mu = sqrt(k) / sigma for every node, k = 8 epochs.
    assert {r[2] for r in rows.values()} == {f"{math.sqrt(8):.4g}"}
    # PNDP: the accounting alone (no training run) gives the same means.
    ref = dpgossip.account("florentine", rounds=32, participation_interval=4, trust="pndp",
                           attackers=0).groupby("distance")[["mu", "epsilon"]].mean()
    for d, r in rows.items():
        assert r[4] == f"{ref.loc[d, 'mu']:.4g}" and r[3] == f"{ref.loc[d, 'epsilon']:.4g}"
    mus = [float(rows[d][4]) for d in sorted(rows)]
    assert mus == sorted(mus, reverse=True) and mus[0] < math.sqrt(8)
