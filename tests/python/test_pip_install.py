"""`pip install ./python` offline (Debian's setuptools, cffi, numpy and
pandas; no package index) into a virtual environment that sees the system's
packages, after `make install` into a prefix: the package imports from
there, finds the installed libdpgossip beside the installed dpgossip command
on PATH, and trains."""

import os
import shutil
import subprocess
import sys

import pytest


def test_pip_install_offline_after_make_install(tmp_path):
    build, cmake = os.environ.get("DPG_BUILD_DIR"), os.environ.get("CMAKE_COMMAND")
    source = os.environ.get("DPG_SOURCE_DIR")
    if not build or not cmake or not source:
        pytest.skip("DPG_BUILD_DIR/CMAKE_COMMAND/DPG_SOURCE_DIR not set: run through ctest")
    prefix, venv = tmp_path / "prefix", tmp_path / "venv"
    subprocess.run([cmake, "--install", build, "--prefix", str(prefix)], check=True,
                   capture_output=True)
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, capture_output=True)
    # A copy: pip builds in the source folder, which must stay clean.
    src = tmp_path / "src"
    shutil.copytree(os.path.join(source, "python"), src,
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "DPGOSSIP_LIBRARY", "PIP_INDEX_URL", "PIP_FIND_LINKS")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1",
               PATH=f"{prefix / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    python = str(venv / "bin" / "python")
    p = subprocess.run([python, "-m", "pip", "install", "--no-build-isolation", "--no-index",
                        str(src)], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    code = ("import dpgossip, dpgossip._lib as l\n"
            "print(dpgossip.__file__)\nprint(l.LIBRARY)\n"
            "m, p = dpgossip.train('ring:n=4', dataset='synthetic:linear,n=200', epochs=4,"
            " batches=2, sigma=0.5)\n"
            "print(len(m), m['node'].dtype, p['mu'].tolist())\n")
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env,
                         cwd=tmp_path, check=True).stdout.splitlines()
    assert out[0].startswith(str(venv))
    assert os.path.realpath(out[1]).startswith(str(prefix))
    # LDP of every node: mu = sqrt(T / b) / sigma = sqrt(4) / 0.5.
    assert out[2] == "4 int64 [4.0, 4.0, 4.0, 4.0]"
