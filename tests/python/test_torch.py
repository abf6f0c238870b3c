"""dpgossip.train with a torch.nn.Module (python/dpgossip/_torch.py, the
library's dpg_train_task): the same privacy table as the built-in model,
the built-in linear model's trajectory with torch.nn.Linear, and every bad
input refused before any work with its message."""

import json
import math
import re

import numpy as np
import pandas as pd
import pytest

import dpgossip
from dpgossip import _torch

torch = pytest.importorskip("torch")
pytest.importorskip("functorch")

SPEC = "synthetic:linear"
SEED = 3


def _linear(d, init=None):
    """torch's linear regression: Linear(d, 1) then the batch's outputs
    as a vector (the targets' shape, so MSELoss is the per-record
    (f(x) - y)^2 of the built-in model); parameters weight then bias, the
    built-in linear model's layout."""
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(d, 1), torch.nn.Flatten(0)).double()
    if init is not None:
        with torch.no_grad():
            m[0].weight.copy_(torch.from_numpy(init[:d]).view(1, d))
            m[0].bias.copy_(torch.from_numpy(init[d:]))
    return m


def _data():
    Xtr, ytr, Xte, yte, n_classes, init = _torch.task_data(SPEC, SEED, 0.2)
    assert n_classes == 0 and init.shape == (Xtr.shape[1] + 1,)
    return Xtr, ytr, Xte, yte, init


COMMON = dict(epochs=2, batches=3, lr=0.05, sigma=1.5, clip=0.7, seed=SEED, eval_every=1)


@pytest.mark.parametrize("protocol,trust,attackers,extra", [
    ("dsgd", "ldp", None, {}),
    ("dsgd", ["pndp", "secldp"], [0, "3+5"], {}),
    ("muffliato:K=2", "pndp", 2, {}),
    # A time-varying schedule (the issue names it): a random matching.
    ("mafalda", "pndp", 0, {"schedule": "matching"}),
])
def test_privacy_table_equals_builtin(protocol, trust, attackers, extra):
    """The accounting reads the protocol, graph, schedule, horizon, clip,
    sigma and seed, never the model: the tables are equal, value for
    value."""
    Xtr, ytr, Xte, yte, init = _data()
    kw = dict(COMMON, protocol=protocol, trust=trust, attackers=attackers, **extra)
    ref = dpgossip.train("florentine", dataset=SPEC, **kw)
    got = dpgossip.train("florentine", dataset=SPEC, model=_linear(Xtr.shape[1]),
                         criterion=torch.nn.MSELoss(), **kw)
    assert len(ref.privacy) > 0
    pd.testing.assert_frame_equal(got.privacy, ref.privacy, check_exact=True)
    for k in ("protocol", "nodes", "rounds", "sigma", "clip", "path", "messages_sent"):
        assert got.info[k] == ref.info[k]


def test_linear_trajectory_matches_builtin():
    """torch.nn.Linear from the built-in model's initial parameters, on the
    same records, batches and noise: the same losses at every step.

    Tolerance. Both runs compute x_{t+1} = W (x_t - s (sum_i clip(g_i) + n_t))
    with the same W, noise n_t and batches; they differ only in how a
    per-record gradient 2 (w.x + b - y) x is rounded (another summation
    order). One residual's absolute error is at most gamma_{d+2} R with
    R = max_i (|w||x_i| + |b| + |y_i|), gamma_k = k u / (1 - k u) (Higham,
    Thm 3.1), so one step's gradient sum moves by at most
    e = s B 2 gamma_{d+2} R X (B the batch size, X = max |x_i| with the
    bias' 1) plus the rounding of the sum itself, B gamma_B G (G the clip).
    Clipping is 1-Lipschitz and W is doubly stochastic, so an error grows
    by at most L = 1 + s B 2 X^2 per step: after T steps
    |dx| <= E = T L^T (e + s B gamma_B G), and a loss (mean of
    (w.x + b - y)^2) moves by at most 2 sqrt(loss) X E + X^2 E^2. The
    bound is evaluated below on this run's data (R with |w| bounded by
    |x_0| + T s B G + noise, generously: 10 x the largest model norm seen)."""
    Xtr, ytr, Xte, yte, init = _data()
    d = Xtr.shape[1]
    kw = dict(COMMON, protocol="dsgd", trust="none")
    ref = dpgossip.train("florentine", dataset=SPEC, **kw).metrics
    got = dpgossip.train("florentine", dataset=SPEC, model=_linear(d, init),
                         criterion=torch.nn.MSELoss(), **kw).metrics
    assert list(got[["round", "node"]].itertuples(index=False)) == \
        list(ref[["round", "node"]].itertuples(index=False))
    assert len(set(ref["round"])) == 6 and np.isfinite(ref["test_loss"]).all()

    u = np.finfo(np.float64).eps / 2
    T, n = 6, 15
    records = Xtr.shape[0]
    s = COMMON["lr"] * n * COMMON["batches"] / records  # the runtime's step
    B = math.ceil(records / (n * COMMON["batches"]))
    Xall = np.vstack([Xtr, Xte])
    X = math.sqrt(float((Xall ** 2).sum(axis=1).max()) + 1.0)
    Y = float(np.abs(np.concatenate([ytr, yte])).max())
    G = COMMON["clip"]
    # The model's norm: the start plus T steps of s (B G + noise); the
    # noise's norm bounded by 10 sigma G sqrt(d + 1) (a chi tail of
    # probability far below 1e-20).
    wmax = np.linalg.norm(init) + T * s * (B * G + 10 * COMMON["sigma"] * G * math.sqrt(d + 1))
    R = wmax * X + Y

    def gamma(k):
        return k * u / (1 - k * u)

    L = 1 + s * B * 2 * X * X
    E = T * L ** T * (s * B * 2 * gamma(d + 2) * R * X + s * B * gamma(B) * G)
    for col in ("train_loss", "test_loss"):
        a, b = got[col].to_numpy(), ref[col].to_numpy()
        bound = (2 * np.sqrt(b) * X * E + X * X * E * E) / b + 8 * u  # + the loss's own rounding
        assert bound.max() < 1e-6, bound.max()  # the goal holds for this run
        assert (np.abs(a - b) / b <= bound).all(), (np.abs(a - b) / b).max()
    # And the runs do move: not two copies of the initial model.
    assert ref.groupby("round").train_loss.mean().iloc[-1] != ref.train_loss.iloc[0]


def _pair(n=40, d=3, seed=0):
    g = np.random.default_rng(seed)
    return g.normal(size=(n, d)), g.integers(0, 2, size=n)


def _expect(match, **kw):
    args = dict(dataset=_pair(), criterion=torch.nn.CrossEntropyLoss(), epochs=1, batches=1,
                trust="none")
    args.update(kw)
    with pytest.raises(dpgossip.UsageError, match=match) as e:
        dpgossip.train("florentine", **args)
    assert e.value.status == 2


def test_output_that_does_not_fit_the_loss():
    _expect(re.escape("criterion: the model's output of shape (2, 3) does not fit MSELoss "
                      "with targets of shape (2,)"),
            model=torch.nn.Linear(3, 3).double(), dataset=(_pair()[0], _pair()[1] * 1.0),
            criterion=torch.nn.MSELoss())
    _expect(re.escape("model: it fails on the dataset's inputs of shape (3,)"),
            model=torch.nn.Linear(5, 2).double())


def test_dataset_smaller_than_the_batches():
    # 40 records, 8 held out: 32 < 15 nodes x 4 batches.
    _expect(re.escape("dataset: 32 training records are fewer than the 15 nodes x 4 batches"),
            model=torch.nn.Linear(3, 2).double(), batches=4)


def test_non_float_parameters():
    m = torch.nn.Linear(3, 2).double()
    m.register_parameter("steps", torch.nn.Parameter(torch.zeros(2, dtype=torch.long),
                                                     requires_grad=False))
    _expect(re.escape("model: parameter steps is torch.int64, not a floating-point type"),
            model=m)


def test_device_and_buffers():
    _expect(re.escape("model: parameter weight is on device meta; dpgossip's run computes on "
                      "the CPU"), model=torch.nn.Linear(3, 2).to("meta"))
    bn = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2)).double()
    _expect("model: the module has buffers", model=bn)


def test_criterion_missing_and_misplaced():
    _expect("criterion: a torch loss", model=torch.nn.Linear(3, 2).double(), criterion=None)
    with pytest.raises(dpgossip.UsageError, match="go with a torch.nn.Module"):
        dpgossip.train("florentine", dataset=SPEC, criterion=torch.nn.MSELoss())


def test_nan_loss_stops_with_node_and_step():
    """A record whose loss is NaN stops the run at the first step that
    uses it, naming the node, the step and the record."""
    X, y = _pair()
    X[:] = np.nan
    with pytest.raises(dpgossip.Error, match=r"^the loss of node (\d+) at step 0 is nan "
                       r"\(training record (\d+)\)") as e:
        dpgossip.train("florentine", model=torch.nn.Linear(3, 2).double(), dataset=(X, y),
                       criterion=torch.nn.CrossEntropyLoss(), trust="none")
    node, record = map(int, re.match(r"the loss of node (\d+) .* record (\d+)",
                                     str(e.value)).groups())
    assert 0 <= node < 15 and 0 <= record < 32


def _lists_run(lists, batches=2, **kw):
    """A florentine run with the caller's @lists; returns (result, calls)
    with calls[(node, step)] the record indices its gradient was asked for."""
    X, y = _pair(n=90)
    Xt, yt = _pair(n=20, seed=1)
    calls = {}
    original = _torch._Task.gradient

    def spy(self, node, step, p, batch, count, clip, g, d, user):
        calls[(node, step)] = list(np.frombuffer(_torch.ffi.buffer(batch, 8 * count),
                                                 dtype=np.uint64))
        return original(self, node, step, p, batch, count, clip, g, d, user)

    _torch._Task.gradient = spy
    try:
        res = dpgossip.train("florentine", model=torch.nn.Linear(3, 2).double(), dataset=(X, y),
                             test_dataset=(Xt, yt), criterion=torch.nn.CrossEntropyLoss(),
                             partition=lists, epochs=2, batches=batches, seed=SEED, **kw)
    finally:
        _torch._Task.gradient = original
    return res, calls


def test_partition_lists():
    """Node u trains on its own list only, batch j being the j-th of b
    consecutive slices in the order given, every record once an epoch;
    a record may serve two nodes; the privacy table is the rule
    partition's (the accounting reads no data)."""
    g = np.random.default_rng(7)
    lists = [g.permutation(90)[:3 + u % 4] for u in range(15)]
    lists[4] = np.array(lists[3])  # two nodes share their records
    lists[9] = torch.tensor([89, 0, 45])  # a tensor is a sequence too
    res, calls = _lists_run(lists, trust="pndp", attackers=0)
    for u in range(15):
        mine = [int(r) for r in lists[u]]
        m = len(mine)
        for t in range(4):  # 2 epochs of 2 batches
            j = t % 2
            assert calls[(u, t)] == mine[j * m // 2:(j + 1) * m // 2], (u, t)
    ref, _ = _lists_run("uniform", trust="pndp", attackers=0)
    pd.testing.assert_frame_equal(res.privacy, ref.privacy, check_exact=True)


@pytest.mark.parametrize("lists,match", [
    ([[0, 1]] * 14, "partition: 14 index lists for a graph of 15 nodes"),
    ([[0, 1]] * 14 + [[2, 90]], "node 14's record 90 (position 1 of its list) is not a "
     "training record: indices go from 0 to 89"),
    ([[0, 1]] * 14 + [[5, 5]], "node 14 lists record 5 twice (position 1 of its list)"),
    ([[0, 1]] * 14 + [[3]], "node 14 holds 1 records but every node needs at least one per "
     "batch (2 batches)"),
    ([[0, 1]] * 14 + [[-1, 2]], "node 14's list holds a negative index"),
    ([[0, 1]] * 14 + [[True, False]], "node 14's list is not a 1-D sequence of integer"),
    ([[0, 1]] * 14 + [[0.5, 2]], "node 14's list is not a 1-D sequence of integer"),
    (7, "a rule string or one list of record indices per node"),
])
def test_partition_lists_refused(lists, match):
    with pytest.raises(dpgossip.UsageError, match=re.escape(match)) as e:
        _lists_run(lists)
    assert e.value.status == 2


def test_partition_lists_need_the_callers_records():
    """Lists index the data as given: a spec string's split, a held-out
    split or a built-in model would move the records under them."""
    lists = [[0, 1]] * 15
    with pytest.raises(dpgossip.UsageError, match="pass the data as a Dataset or .X, y. with "
                       "test_dataset="):
        dpgossip.train("florentine", model=torch.nn.Linear(3, 2).double(), dataset=_pair(),
                       criterion=torch.nn.CrossEntropyLoss(), partition=lists)
    with pytest.raises(dpgossip.UsageError, match="index lists go with a torch.nn.Module"):
        dpgossip.train("florentine", dataset=SPEC, partition=lists)


def _png(path):
    """(width, height, {tEXt key: text}) of the PNG @path, every chunk's
    CRC checked and the chunk sequence a valid PNG's (IHDR first, IDAT,
    IEND last): a file that only exists or is cut short fails here."""
    import struct
    import zlib
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    i, kinds, texts = 8, [], {}
    while i < len(data):
        n, = struct.unpack(">I", data[i:i + 4])
        kind, body = data[i + 4:i + 8], data[i + 8:i + 8 + n]
        crc, = struct.unpack(">I", data[i + 8 + n:i + 12 + n])
        assert len(body) == n and zlib.crc32(kind + body) == crc, kind
        kinds.append(kind)
        if kind == b"tEXt":
            k, v = body.split(b"\0", 1)
            texts[k.decode("latin-1")] = v.decode("latin-1")
        i += 12 + n
    assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND" and b"IDAT" in kinds
    width, height = struct.unpack(">II", data[16:24])
    return width, height, texts


def _example(args):
    import os
    import subprocess
    import sys
    if not os.path.isdir("/usr/share/datasets/fashion-mnist"):
        pytest.skip("dataset-fashion-mnist is not installed (scripts/install-deps.sh)")
    script = os.path.join(os.environ.get("DPG_SOURCE_DIR", "."), "examples",
                          "torch_fashion_mnist.py")
    return script, subprocess.run([sys.executable, script] + args, capture_output=True,
                                  text=True, check=True, env=os.environ).stdout


def test_fashion_mnist_example_small(tmp_path):
    """examples/torch_fashion_mnist.py on a small size, two seeds: both
    protocols run the CNN at the target mu (their privacy tables' largest
    mu), and its figure is a valid PNG that draws the mean test loss over
    the seeds, per round and protocol, of its own --csv table: each point
    where the axes put it, in the protocol's colour; the same bytes again
    from that table."""
    pytest.importorskip("matplotlib")
    from PIL import Image
    png, csv = tmp_path / "f.png", tmp_path / "means.csv"
    script, out = _example(["--graph", "florentine", "--limit", "600", "--epochs", "2",
                            "--batches", "2", "--seeds", "2", "--mu", "4", "--csv", str(csv),
                            "--figure", str(png)])
    rows = [line.split() for line in out.splitlines()[1:5]]
    assert [(r[0], r[1]) for r in rows] == [("dsgd", "1"), ("dsgd", "2"), ("mafalda", "1"),
                                            ("mafalda", "2")]
    for r in rows:
        assert abs(float(r[3]) - 4.0) <= 1e-4  # printed to 4 decimals
        assert 0 <= float(r[5]) <= 1 and math.isfinite(float(r[4]))
    assert out.splitlines()[5] == f"figure: {png}"

    width, height, texts = _png(png)
    assert (width, height) == (640, 400)  # 6.4 x 4 in at 100 dpi
    assert "Software" not in texts  # no version in the file: the same bytes anywhere
    meta = json.loads(texts["dpgossip-curves"])
    # The curves, recomputed here from the --csv table (its floats are
    # written to round-trip): for each protocol, per round, the mean over
    # the two seeds, summed in seed order as pandas sums them: bit-equal.
    means = pd.read_csv(csv, float_precision="round_trip")
    assert sorted(set(means["round"])) == [2, 4] and sorted(set(means["seed"])) == [1, 2]
    want = {}
    for p in ("dsgd", "mafalda"):
        m = means[means["protocol"] == p]
        want[p] = [[2, 4], [(m[(m["round"] == r) & (m["seed"] == 1)].test_loss.iloc[0] +
                             m[(m["round"] == r) & (m["seed"] == 2)].test_loss.iloc[0]) / 2
                            for r in (2, 4)]]
    assert meta["curves"] == want
    # Every point is drawn where the axes map it: its protocol's marker
    # colour at the mapped pixel (within one pixel of rounding), or, where
    # a marker drawn later covers that pixel, in the ring around it.
    px = np.asarray(Image.open(png).convert("RGB"))
    assert px.shape == (height, width, 3)
    x0, y0, x1, y1 = meta["axes"]
    (xa, xb), (ya, yb) = meta["xlim"], meta["ylim"]

    def where(x, y):
        return (x0 + (x - xa) / (xb - xa) * (x1 - x0), y1 - (y - ya) / (yb - ya) * (y1 - y0))

    def rgb(colour):
        return tuple(int(colour[k:k + 2], 16) for k in (1, 3, 5))

    order = list(want)
    for i, p in enumerate(order):
        colour, radius = rgb(meta["style"][p]["colour"]), meta["style"][p]["diameter_px"] / 2
        for x, y in zip(*want[p]):
            cx, cy = where(x, y)
            covered = any(math.hypot(*np.subtract(where(qx, qy), (cx, cy))) < radius
                          for q in order[i + 1:] for qx, qy in zip(*want[q]))
            r = int(radius) - 1 if covered else 1
            window = px[max(0, int(cy) - r):int(cy) + r + 2, max(0, int(cx) - r):int(cx) + r + 2]
            assert (window == colour).all(axis=2).any(), (p, x, y, cx, cy)
    # Nowhere else in the axes: each protocol's colour only near its points.
    for p in order:
        colour, radius = rgb(meta["style"][p]["colour"]), meta["style"][p]["diameter_px"] / 2
        ys, xs = np.nonzero((px == colour).all(axis=2))
        inside = (xs > x0) & (xs < x1) & (ys > y0) & (ys < y1)
        for u, v in zip(xs[inside], ys[inside]):
            assert min(math.hypot(u + 0.5 - cx, v + 0.5 - cy) for cx, cy in
                       (where(x, y) for x, y in zip(*want[p]))) <= radius + 1, (p, u, v)
    # Deterministic: the example's own figure function on the --csv table
    # gives the very bytes.
    import importlib.util
    spec = importlib.util.spec_from_file_location("torch_fashion_mnist", script)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    again = tmp_path / "again.png"
    example.figure(means, again, "florentine, mu = 4 (LDP), 2 seeds, 2 x 2 steps")
    assert again.read_bytes() == png.read_bytes()
