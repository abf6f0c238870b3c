"""Shared by the Python tests: the dpgossip command to compare with."""

import io
import json
import os
import subprocess

import pandas as pd
import pytest

SOURCE = os.environ.get("DPG_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.environ.get("DPG_TEST_DATA", os.path.join(SOURCE, "tests", "data"))
GRAPHS = os.path.join(os.environ.get("DPG_DATA_DIR", os.path.join(SOURCE, "data")), "graphs")


class Cli:
    """Runs build/dpgossip: status, stdout, stderr."""

    def __init__(self, exe):
        self.exe = exe

    def __call__(self, *args):
        p = subprocess.run([self.exe, *map(str, args)], capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    def ok(self, *args):
        status, out, err = self(*args)
        assert status == 0, err
        return out

    def json(self, *args):
        return json.loads(self.ok(*args, "--format", "json"))

    def csv(self, *args):
        return pd.read_csv(io.StringIO(self.ok(*args, "--format", "csv")), float_precision="round_trip")

    def error(self, cmd, *args):
        """(status, message) of a failing command: its first stderr line
        without the "dpgossip CMD: " prefix."""
        status, _, err = self(cmd, *args)
        assert status != 0
        first = err.splitlines()[0]
        prefix = f"dpgossip {cmd}: "
        assert first.startswith(prefix), err
        return status, first[len(prefix):]


@pytest.fixture(scope="session")
def cli():
    exe = os.environ.get("DPGOSSIP")
    if not exe:
        pytest.skip("DPGOSSIP (the dpgossip binary) is not set: run through ctest")
    return Cli(exe)


@pytest.fixture(scope="session")
def data():
    return DATA


@pytest.fixture(scope="session")
def graphs():
    """data/graphs: the vendored edge lists."""
    return GRAPHS
