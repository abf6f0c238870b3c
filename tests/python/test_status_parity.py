"""Every documented error through both front ends: `dpgossip CMD ...` and
dpgossip.CMD(...) must give the same status (2: the user's input, 1: the
run's) and the same message, as api/dpgossip.h promises. Both take the
status from protocols/error.c (proto_error_status); a front end that
decides a status by itself shows up here as a mismatch.

The cases are the errors the help texts, api/dpgossip.h's Errors
paragraphs and docs/ name: an unknown name, a value out of range, a spec
that does not parse (2); a file that is missing or whose content does not
parse, for each kind of file a user names (1): graph, churn, dataset, the
geo, links and country latency files, sessions and STUNner traces."""

import re

import pytest

import dpgossip

ACCOUNT = ("--generate", "florentine", "-T", "4", "--trust", "pndp", "-a", "0")
ACC = dict(rounds=4, trust="pndp", attackers=0)


def account(*args, **kw):
    """(CLI args, library call) of an account run on florentine."""
    return ("account", (*ACCOUNT, *args), lambda: dpgossip.account("florentine", **ACC, **kw))


def files(tmp_path):
    """The files the cases name: (name -> path) in @tmp_path."""
    text = {
        "churn_bad.txt": "x y z\n",            # the malformed churn file
        "churn_short.txt": "0\n",               # one token on a line
        "graph_bad.edges": "0 1\n1 two\n",      # a node that is not a number
        "graph_empty.edges": "# nothing\n",     # no edge
        "data_bad.csv": "a,b,y\n1,2,3\n1,x,2\n",  # a cell that is not a number
    }
    paths = {}
    for name, body in text.items():
        p = tmp_path / name
        p.write_text(body)
        paths[name] = str(p)
    paths["missing"] = str(tmp_path / "no-such-file")
    paths["dir"] = str(tmp_path)
    paths["out"] = str(tmp_path / "out")
    return paths


def cases(f):
    """(id, expected status, command, CLI args, library call)."""
    syn = "synthetic:linear,n=40,d=3,seed=1"
    return [
        # account: names and values the user typed (2)
        ("unknown-protocol", 2, *account("--protocol", "nosuch", protocol="nosuch")),
        ("protocol-param-range", 2,
         *account("--protocol", "muffliato:K=0", protocol="muffliato:K=0")),
        ("unknown-trust", 2, "account",
         ("--generate", "florentine", "-T", "4", "--trust", "xyz", "-a", "0"),
         lambda: dpgossip.account("florentine", rounds=4, trust="xyz", attackers=0)),
        ("negative-sigma", 2, *account("--sigma", "-1", sigma=-1.0)),
        ("unknown-schedule", 2, *account("--schedule", "nosuch", schedule="nosuch")),
        ("schedule-param", 2,
         *account("--schedule", "edge-failure:p=x", schedule="edge-failure:p=x")),
        ("unknown-generator", 2, "account",
         ("--generate", "nosuchgraph", "-T", "4", "--trust", "pndp", "-a", "0"),
         lambda: dpgossip.account("nosuchgraph", rounds=4, trust="pndp", attackers=0)),
        ("unknown-gossip", 2, *account("--gossip", "nosuch", gossip="nosuch")),
        ("unknown-mode", 2, *account("--mode", "nosuch", mode="nosuch")),
        # account: files the user named (1)
        ("churn-malformed", 1,
         *account("--schedule", "churn:" + f["churn_bad.txt"], schedule="churn:" + f["churn_bad.txt"])),
        ("churn-one-token", 1,
         *account("--schedule", "churn:" + f["churn_short.txt"],
                  schedule="churn:" + f["churn_short.txt"])),
        ("churn-missing", 1,
         *account("--schedule", "churn:" + f["missing"], schedule="churn:" + f["missing"])),
        ("graph-file-malformed", 1, "account",
         ("--graph", f["graph_bad.edges"], "-T", "4", "--trust", "pndp", "-a", "0"),
         lambda: dpgossip.account(dpgossip_path(f["graph_bad.edges"]), **ACC)),
        ("graph-file-missing", 1, "account",
         ("--graph", f["missing"], "-T", "4", "--trust", "pndp", "-a", "0"),
         lambda: dpgossip.account(dpgossip_path(f["missing"]), **ACC)),
        # account: latency and trace files that cannot be read (1), as a
        # missing graph or churn file
        ("geo-missing", 1,
         *account("--mode", "deadline:ms=100", "--latency", "geo:nodes=" + f["missing"],
                  mode="deadline:ms=100", latency="geo:nodes=" + f["missing"])),
        ("geo-folder", 1,
         *account("--mode", "deadline:ms=100", "--latency", "geo:nodes=" + f["dir"],
                  mode="deadline:ms=100", latency="geo:nodes=" + f["dir"])),
        ("links-missing", 1,
         *account("--mode", "deadline:ms=100", "--latency", f"links:file={f['missing']},unit=ms",
                  mode="deadline:ms=100", latency=f"links:file={f['missing']},unit=ms")),
        ("country-missing", 1,
         *account("--mode", "deadline:ms=100", "--latency", f"country:rtt={f['missing']},seed=1",
                  mode="deadline:ms=100", latency=f"country:rtt={f['missing']},seed=1")),
        ("country-intra-device", 1,
         *account("--mode", "deadline:ms=100", "--latency",
                  f"country:rtt={f['churn_bad.txt']},seed=1,intra=/dev/zero",
                  mode="deadline:ms=100",
                  latency=f"country:rtt={f['churn_bad.txt']},seed=1,intra=/dev/zero")),
        ("sessions-missing", 1,
         *account("--schedule", f"churn:trace={f['missing']},format=sessions",
                  schedule=f"churn:trace={f['missing']},format=sessions")),
        ("stunner-missing", 1,
         *account("--schedule", f"churn:trace={f['missing']},format=stunner",
                  schedule=f"churn:trace={f['missing']},format=stunner")),
        # graph
        ("graph-unknown-generator", 2, "graph", ("--generate", "nosuchgraph"),
         lambda: dpgossip.graph("nosuchgraph")),
        ("graph-generator-param", 2, "graph", ("--generate", "erdos:n=10"),
         lambda: dpgossip.graph("erdos:n=10")),
        ("graph-file-empty", 1, "graph", ("--graph", f["graph_empty.edges"]),
         lambda: dpgossip.graph(dpgossip_path(f["graph_empty.edges"]))),
        ("graph-file-malformed", 1, "graph", ("--graph", f["graph_bad.edges"]),
         lambda: dpgossip.graph(dpgossip_path(f["graph_bad.edges"]))),
        # mafalda
        ("mafalda-epochs", 2, "mafalda", ("--generate", "florentine", "-k", "0", "-b", "2"),
         lambda: dpgossip.mafalda("florentine", epochs=0, batches=2)),
        # train
        ("train-unknown-dataset", 2, "train", ("--generate", "ring:n=4", "--out", f["out"], "--dataset", "nosuch:x"),
         lambda: dpgossip.train("ring:n=4", dataset="nosuch:x")),
        ("train-unknown-model", 2, "train",
         ("--generate", "ring:n=4", "--out", f["out"], "--dataset", syn, "--model", "nosuch"),
         lambda: dpgossip.train("ring:n=4", dataset=syn, model="nosuch")),
        ("train-dataset-missing", 1, "train",
         ("--generate", "ring:n=4", "--out", f["out"], "--dataset", "csv:" + f["missing"]),
         lambda: dpgossip.train("ring:n=4", dataset="csv:" + f["missing"])),
        ("train-dataset-malformed", 1, "train",
         ("--generate", "ring:n=4", "--out", f["out"], "--dataset", "csv:" + f["data_bad.csv"]),
         lambda: dpgossip.train("ring:n=4", dataset="csv:" + f["data_bad.csv"])),
        ("train-churn-malformed", 1, "train",
         ("--generate", "ring:n=4", "--out", f["out"], "--dataset", syn, "--schedule", "churn:" + f["churn_bad.txt"]),
         lambda: dpgossip.train("ring:n=4", dataset=syn, schedule="churn:" + f["churn_bad.txt"])),
        ("train-geo-missing", 1, "train",
         ("--generate", "ring:n=4", "--out", f["out"], "--dataset", syn, "--mode", "deadline:ms=100",
          "--latency", "geo:nodes=" + f["missing"]),
         lambda: dpgossip.train("ring:n=4", dataset=syn, mode="deadline:ms=100",
                                latency="geo:nodes=" + f["missing"])),
        ("train-links-folder", 1, "train",
         ("--generate", "ring:n=4", "--out", f["out"], "--dataset", syn, "--mode", "deadline:ms=100",
          "--latency", f"links:file={f['dir']},unit=ms"),
         lambda: dpgossip.train("ring:n=4", dataset=syn, mode="deadline:ms=100",
                                latency=f"links:file={f['dir']},unit=ms")),
        ("train-stunner-missing", 1, "train",
         ("--generate", "ring:n=4", "--out", f["out"], "--dataset", syn,
          "--schedule", f"churn:trace={f['missing']},format=stunner"),
         lambda: dpgossip.train("ring:n=4", dataset=syn,
                                schedule=f"churn:trace={f['missing']},format=stunner")),
        ("train-unknown-schedule", 2, "train",
         ("--generate", "ring:n=4", "--out", f["out"], "--dataset", syn, "--schedule", "nosuch"),
         lambda: dpgossip.train("ring:n=4", dataset=syn, schedule="nosuch")),
        # audit
        ("audit-unknown-protocol", 2, "audit",
         ("--generate", "florentine", "-a", "0", "--victim", "1", "--protocol", "nosuch"),
         lambda: dpgossip.audit("florentine", attackers=0, victims=1, protocol="nosuch")),
        ("audit-country-missing", 1, "audit",
         ("--generate", "florentine", "-a", "0", "--victim", "1", "--mode", "deadline:ms=100",
          "--latency", f"country:rtt={f['missing']},seed=1"),
         lambda: dpgossip.audit("florentine", attackers=0, victims=1, mode="deadline:ms=100",
                                latency=f"country:rtt={f['missing']},seed=1")),
        ("audit-sessions-missing", 1, "audit",
         ("--generate", "florentine", "-a", "0", "--victim", "1",
          "--schedule", f"churn:trace={f['missing']},format=sessions"),
         lambda: dpgossip.audit("florentine", attackers=0, victims=1,
                                schedule=f"churn:trace={f['missing']},format=sessions")),
        ("audit-churn-malformed", 1, "audit",
         ("--generate", "florentine", "-a", "0", "--victim", "1",
          "--schedule", "churn:" + f["churn_bad.txt"]),
         lambda: dpgossip.audit("florentine", attackers=0, victims=1,
                                schedule="churn:" + f["churn_bad.txt"])),
    ]


def same_search(message):
    """@message without the plugin folders searched and the way to give a
    plugin: the library searches its own installation folder, not the
    program's, and names plugins= where the command names --protocol-plugin
    (protocols/plugin_load.c)."""
    message = re.sub(r"\(searched [^;]*;", "(searched ...;", message)
    return message.replace("plugins=['FILE.so']", "--protocol-plugin FILE.so")


def dpgossip_path(p):
    """A file for the library: a pathlib.Path (a str is a generator spec)."""
    import pathlib
    return pathlib.Path(p)


def test_every_documented_error_has_one_status_and_message(cli, tmp_path):
    f = files(tmp_path)
    mismatches = []
    for name, want, cmd, args, call in cases(f):
        status, message = cli.error(cmd, *args)
        message = same_search(message)
        try:
            call()
            got = (0, "(no error)")
        except dpgossip.Error as e:
            got = (e.status, same_search(str(e).splitlines()[0]))
            assert isinstance(e, dpgossip.UsageError) == (e.status == 2), name
        if (status, message) != got or status != want:
            mismatches.append(f"{name}: dpgossip {cmd} {status} '{message}'; "
                              f"dpgossip.{cmd} {got[0]} '{got[1]}'; documented {want}")
    assert not mismatches, "\n".join(mismatches)
