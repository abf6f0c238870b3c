"""Protocol plugins from Python (issue 36, item 5): every function that runs
a protocol (account, train, audit, run) takes ``plugins=`` and finds a
protocol in DPGOSSIP_PLUGIN_PATH, with the command's numbers for the same
plugin; a plugin loaded by one call is not seen by the next one; the
"unknown protocol" error names ``plugins=`` and the library's own plugin
folder, not python3's prefix.

The plugins are the build's (tests/plugins): tiny-dsgd (D-SGD as a plugin),
gossip-pairs (the example, which calls the plugin API) and reused-noise (a
broken D-SGD the audit reports overstated). Each check
that depends on what the process loaded before runs in a fresh python."""

import io
import os
import subprocess
import sys

import pandas as pd
import pytest

import dpgossip

PLUGINS = os.path.join(os.environ.get("DPG_BUILD_DIR", "."), "tests", "plugins")
TINY = os.path.join(PLUGINS, "tiny-dsgd.so")
REUSED = os.path.join(PLUGINS, "reused-noise.so")


def fresh_python(code, env=None):
    """(status, stdout, stderr) of @code in a new python that imports the
    package as this one does, DPGOSSIP_PLUGIN_PATH unset unless @env sets it."""
    e = {k: v for k, v in os.environ.items() if k != "DPGOSSIP_PLUGIN_PATH"}
    e.update(env or {})
    p = subprocess.run([sys.executable, "-c", "import dpgossip\n" + code], capture_output=True,
                       text=True, env=e)
    return p.returncode, p.stdout, p.stderr


def test_account_plugins_is_the_cli_one(cli):
    want = cli.csv("account", "--generate", "florentine", "-T", "4", "--trust", "pndp", "-a",
                   "0", "--protocol-plugin", TINY)
    got = dpgossip.account("florentine", rounds=4, trust="pndp", attackers=0, plugins=TINY)
    assert got.attrs["protocol"] == "tiny-dsgd"  # the only plugin's protocol by default
    assert len(got) == len(want) == 14
    for col in ("victim", "rdp", "epsilon", "mu"):
        assert list(got[col]) == list(want[col]), col


def test_train_plugins_is_the_cli_one(cli, tmp_path):
    out = tmp_path / "m.csv"
    cli.ok("train", "--generate", "ring:n=6", "--protocol-plugin", TINY, "--dataset",
           "synthetic:linear", "--epochs", "2", "--out", out, "--quiet")
    got = dpgossip.train("ring:n=6", dataset="synthetic:linear", epochs=2, plugins=[TINY])
    assert got.info["protocol"] == "tiny-dsgd"
    want = pd.read_csv(out, float_precision="round_trip")
    assert list(got.metrics["test_loss"]) == list(want["test_loss"])
    priv = pd.read_csv(tmp_path / "m_privacy.csv", float_precision="round_trip")
    assert list(got.privacy["epsilon"]) == list(priv["epsilon"])


def test_run_plugins(cli, tmp_path):
    ini = os.path.join(os.environ.get("DPG_SOURCE_DIR", "."), "scenarios",
                       "figure2-florentine.ini")
    sets = ["simulation.rounds=3", "protocol.name=tiny-dsgd", "privacy.trust=ldp",
            "privacy.compare=none"]
    status, _, err = cli("run", ini, *sum((["--set", s] for s in sets), []), "--out",
                         tmp_path / "cli", "--quiet", "--protocol-plugin", TINY)
    assert status == 0, err
    res = dpgossip.run(ini, dict(s.split("=") for s in sets), out=tmp_path / "py", threads=1,
                       plugins=TINY)
    want = (tmp_path / "cli" / "privacy.csv").read_bytes()
    assert (tmp_path / "py" / "privacy.csv").read_bytes() == want
    assert set(res["privacy"]["trust"]) == {"ldp"}


def test_a_plugin_is_seen_by_its_call_only():
    """After audit(plugins=[...]), account and train without plugins do not
    find the plugin (they did: the registry is process-wide); with it again,
    they do."""
    code = (
        "import warnings; warnings.simplefilter('ignore')\n"
        f"df = dpgossip.audit('florentine', rounds=4, attackers=0, victims=8, trust='ldp',"
        f" trials=20, plugins={REUSED!r})\n"
        "assert df.attrs['protocol'] == 'reused-noise'\n"
        "for call in (lambda: dpgossip.account('florentine', rounds=4, trust='ldp',"
        " attackers=0, protocol='reused-noise'),\n"
        "             lambda: dpgossip.train('ring:n=6', dataset='synthetic:linear',"
        " protocol='reused-noise'),\n"
        "             lambda: dpgossip.audit('florentine', rounds=4, attackers=0, victims=8,"
        " trust='ldp', trials=20, protocol='reused-noise')):\n"
        "    try:\n"
        "        call()\n"
        "        print('found')\n"
        "    except dpgossip.Error as e:\n"
        "        print(str(e).split(' (')[0].split(': ')[-1])\n"
        f"df = dpgossip.account('florentine', rounds=4, trust='ldp', attackers=0,"
        f" plugins={REUSED!r})\n"
        "print(df.attrs['protocol'])\n")
    status, out, err = fresh_python(code)
    assert status == 0, err
    assert out.splitlines() == ["unknown protocol 'reused-noise'"] * 3 + ["reused-noise"]


def test_plugin_path_from_python(cli):
    """DPGOSSIP_PLUGIN_PATH: the protocol is found by name, and loads in a
    process that loaded no plugin before (gossip-pairs calls
    proto_node_context: 'undefined symbol' when the library was not made
    global before a plugin of the path was opened); the numbers are the
    command's."""
    pairs = os.path.join(PLUGINS, "gossip-pairs.so")
    want = cli.csv("account", "--generate", "florentine", "-T", "4", "--trust", "pndp", "-a",
                   "0", "--protocol-plugin", pairs)
    code = ("df = dpgossip.account('florentine', rounds=4, trust='pndp', attackers=0,"
            " protocol='gossip-pairs')\n"
            "print(df.to_csv(index=False))\n")
    status, out, err = fresh_python(code, {"DPGOSSIP_PLUGIN_PATH": PLUGINS})
    assert status == 0, err
    got = pd.read_csv(io.StringIO(out), float_precision="round_trip")
    assert list(got["victim"]) == list(want["victim"])
    assert list(got["rdp"]) == list(want["rdp"])


def test_unknown_protocol_speaks_python():
    """The error names plugins= (not the command's --protocol-plugin) and
    searches the library's installation folder, not the one of python3's
    prefix (/usr/bin/python3 -> /usr/lib/dpgossip/plugins)."""
    with pytest.raises(dpgossip.UsageError) as e:
        dpgossip.account("florentine", rounds=4, trust="pndp", attackers=0, protocol="nosuch")
    message = str(e.value)
    assert "plugins=['FILE.so']" in message and "--protocol-plugin" not in message
    searched = message.split("(searched ")[1].split(";")[0].split(":")
    lib_prefix = os.path.dirname(os.path.dirname(os.path.realpath(dpgossip._lib.LIBRARY)))
    python_prefix = os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))
    if python_prefix != lib_prefix:
        assert os.path.join(python_prefix, "lib", "dpgossip", "plugins") not in searched
    with pytest.raises(dpgossip.UsageError, match="^plugins: plugin no-such.so: no such file"):
        dpgossip.account("florentine", rounds=4, trust="pndp", attackers=0,
                         plugins="no-such.so")


def test_scenario_plugin_consent_speaks_python(tmp_path):
    """A scenario's protocol.plugin is not loaded without consent; the
    refusal tells a Python user the argument that gives it, and with it the
    run goes through."""
    ini = tmp_path / "p.ini"
    ini.write_text("[topology]\ngenerate = florentine\n[simulation]\nrounds = 3\n"
                   f"[protocol]\nplugin = {TINY}\nname = tiny-dsgd\n"
                   "[privacy]\ntrust = ldp\ncompare = none\n")
    with pytest.raises(dpgossip.Error) as e:  # an invalid scenario: `run` exits 1 too
        dpgossip.run(str(ini), out=tmp_path / "refused", threads=1)
    assert "allow_plugins=True" in str(e.value)
    res = dpgossip.run(str(ini), out=tmp_path / "allowed", threads=1, allow_plugins=True)
    assert set(res["privacy"]["trust"]) == {"ldp"}
