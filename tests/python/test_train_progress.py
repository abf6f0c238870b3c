"""dpgossip.train's progress on stderr (python/dpgossip/_progress.py over
the library's DpgTrainOptions.progress): the command's lines, phases
named, steps counted with an ETA, silenced by quiet=True as -q silences
the command, and none for a short run at the default 10 s interval; the
results are DataFrames whatever the model (pandas is installed here)."""

import re

import pandas as pd
import pytest

import dpgossip

TIME = r"\d+:\d\d(?::\d\d)?"
LINE = re.compile(rf"^dpgossip train: (.+), ({TIME}) elapsed, ETA (\?|{TIME})$")
ARGS = dict(dataset="synthetic:linear", epochs=2, batches=3, seed=2)
STEPS = re.compile(r"^(\d+)/(\d+) steps \((\d+)%\)$")


def _lines(stderr):
    """The progress lines' (what, elapsed, eta), each line checked against
    the command's format; stderr holds nothing else here."""
    out = []
    for line in stderr.splitlines():
        m = LINE.match(line)
        assert m, line
        out.append(m.groups())
    return out


def _whats(lines):
    """The successive things said, a repeat of the same one dropped (the
    heartbeat repeats a phase or the last count whenever one interval
    passes without a line: how often depends on the machine's speed)."""
    out = []
    for what, _, _ in lines:
        if not out or out[-1] != what:
            out.append(what)
    return out


def _check_steps(whats, T):
    """The counted part: k/T steps (floor(100 k / T)%) with k increasing
    to T, between the set-up phase and the phases after the last step."""
    steps = [STEPS.match(w) for w in whats]
    counted = [m for m in steps if m]
    assert counted and all(int(m.group(2)) == T for m in counted)
    done = [int(m.group(1)) for m in counted]
    assert done == sorted(set(done)) and done[-1] == T
    assert all(int(m.group(3)) == 100 * int(m.group(1)) // T for m in counted)
    first = steps.index(counted[0])
    assert all(steps[first:first + len(counted)])  # one run of counts
    return whats[:first], whats[first + len(counted):]


AFTER = ["after the last step: evaluation and privacy accounting",
         "after the last step: privacy accounting"]
SETUP = ["building the graph", "setting up the run (schedule, dataset, models)"]


def test_progress_matches_the_command(cli, tmp_path, monkeypatch, capsys):
    """A built-in model's run says what `dpgossip train` says, in the same
    order (DPGOSSIP_PROGRESS_INTERVAL=0: a line at every report)."""
    monkeypatch.setenv("DPGOSSIP_PROGRESS_INTERVAL", "0")
    dpgossip.train("florentine", **ARGS)
    got = _lines(capsys.readouterr().err)
    status, _, err = cli("train", "--generate", "florentine", "--dataset", ARGS["dataset"],
                         "--epochs", 2, "--batches", 3, "--seed", 2, "--out", tmp_path / "t.csv")
    assert status == 0, err
    want = _lines("\n".join(line for line in err.splitlines() if line.startswith("dpgossip train: ")
                            and " elapsed, ETA " in line))
    # What each says, in the order first said (the command repeats its
    # last count when the runtime reports the end a second time).
    assert list(dict.fromkeys(_whats(got))) == list(dict.fromkeys(_whats(want)))
    before, after = _check_steps(_whats(got), 6)
    assert before == SETUP and after == AFTER
    # Elapsed never goes back; an ETA once a rate is known (the second count
    # of the phase on), "?" before.
    secs = [sum(int(x) * 60 ** i for i, x in enumerate(reversed(e.split(":")))) for _, e, _ in got]
    assert secs == sorted(secs)
    counts = [(what, eta) for what, _, eta in got if STEPS.match(what)]
    assert counts[0][1] == "?" and all(eta != "?" for what, eta in counts if what != counts[0][0])


def test_torch_progress(monkeypatch, capsys):
    """A torch model's run: its own checking phase first, then the
    library's phases and counted steps."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("functorch")
    monkeypatch.setenv("DPGOSSIP_PROGRESS_INTERVAL", "0")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(10, 1), torch.nn.Flatten(0)).double()
    r = dpgossip.train("florentine", model=model, criterion=torch.nn.MSELoss(), **ARGS)
    before, after = _check_steps(_whats(_lines(capsys.readouterr().err)), 6)
    assert before == ["checking the torch model and its data"] + SETUP and after == AFTER
    # What non-torch train returns: DataFrames with the same columns.
    builtin = dpgossip.train("florentine", quiet=True, **ARGS)
    for got, want in ((r.metrics, builtin.metrics), (r.means, builtin.means),
                      (r.privacy, builtin.privacy)):
        assert isinstance(got, pd.DataFrame) and list(got.columns) == list(want.columns)
        assert list(got.dtypes) == list(want.dtypes) and len(got) == len(want)
    pd.testing.assert_frame_equal(r.privacy, builtin.privacy)
    metrics, privacy = r  # unpacks as the built-in model's result
    assert metrics is r.metrics and privacy is r.privacy


def test_quiet_and_short_runs_print_nothing(monkeypatch, capsys):
    monkeypatch.setenv("DPGOSSIP_PROGRESS_INTERVAL", "0")
    dpgossip.train("florentine", quiet=True, **ARGS)
    assert capsys.readouterr().err == ""
    # The default: a line every 10 s off a terminal, so a run of well under
    # a second prints none, as the command's.
    monkeypatch.delenv("DPGOSSIP_PROGRESS_INTERVAL")
    dpgossip.train("florentine", **ARGS)
    assert capsys.readouterr().err == ""
