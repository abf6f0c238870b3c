"""The slow-kernel note (dpg_blas_note, sim/blas.h) as a Python warning:
once, on import, under OPENBLAS_CORETYPE=Prescott on a CPU with AVX2 or
AVX-512; silenced by DPGOSSIP_BLAS_NOTE=0 (what the suite sets)."""
import os
import subprocess
import sys

import pytest

CHILD = """
import warnings
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    import dpgossip
print(sum("OpenBLAS runs its Prescott kernel" in str(x.message) for x in w))
"""


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _count(env_extra):
    env = dict(os.environ, OPENBLAS_CORETYPE="Prescott", **env_extra)
    p = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                       timeout=120, env=env)
    assert p.returncode == 0, p.stderr
    return int(p.stdout.strip())


@pytest.mark.skipif(not _cpu_flags() & {"avx2", "avx512f"},
                    reason="this CPU has neither AVX2 nor AVX-512: Prescott is not slower than it allows")
def test_prescott_warns_once_on_import():
    assert _count({"DPGOSSIP_BLAS_NOTE": "1"}) == 1
    assert _count({"DPGOSSIP_BLAS_NOTE": "0"}) == 0
