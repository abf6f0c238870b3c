"""examples/figure2_table.py runs and prints docs/figure2.md's Florentine rows."""

import os
import subprocess
import sys


def test_figure2_table_example():
    script = os.path.join(os.environ.get("DPG_SOURCE_DIR", "."), "examples", "figure2_table.py")
    out = subprocess.run([sys.executable, script], capture_output=True, text=True, check=True,
                         env=os.environ).stdout
    rows = {int(line.split()[0]): line.split()[1:] for line in out.splitlines()
            if line.strip() and line.split()[0].isdigit()}
    # docs/figure2.md, "Measured gap": distance, pairs, ours, Muffliato, ratio.
    assert rows == {1: ["40", "10.3", "10", "0.968"], 2: ["70", "0.946", "10", "10.6"],
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
