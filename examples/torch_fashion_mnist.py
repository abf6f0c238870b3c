#!/usr/bin/env python3
"""A PyTorch CNN on Fashion-MNIST (Debian's dataset-fashion-mnist) trained
in the simulated network by DP-D-SGD and by Mafalda at the same local DP
guarantee (every node's mu), on the Facebook ego graph 414 (148 nodes),
over a few seeds. The model and its per-example gradients are torch's; the
protocol, its noise, the gossip and the exact accounting are dpgossip's.

    python3 examples/torch_fashion_mnist.py                  # the full example
    python3 examples/torch_fashion_mnist.py --graph florentine --limit 600 \\
        --epochs 1 --batches 2 --seeds 1                     # seconds (the tests)

Prints, per protocol and seed, the noise multiplier that gives the target
mu, the run's largest mu (its privacy table), the final mean test loss and
accuracy over the nodes; --csv FILE writes the per-round means, --figure
FILE (default torch_fashion_mnist.png; "" for none) draws the mean test
loss over the seeds per round, one curve per protocol (matplotlib's Agg
backend: the same PNG bytes for the same means). The PNG carries the
curves it draws and where its axes are (tEXt chunk "dpgossip-curves",
JSON), which tests/python/test_torch.py reads back against the pixels.
"""

import argparse
import json
import os

import pandas as pd
import torch

import dpgossip

FASHION = "/usr/share/datasets/fashion-mnist"
EGO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "graphs",
                   "facebook-ego-414-lcc.edges")


def cnn():
    """Two strided 5x5 convolutions and a linear layer (2,202 parameters):
    no BatchNorm (per-example gradients need a model without buffers). The
    features come flat (784 standardized pixels): Unflatten shapes them."""
    return torch.nn.Sequential(
        torch.nn.Unflatten(1, (1, 28, 28)),
        torch.nn.Conv2d(1, 4, 5, stride=2), torch.nn.ReLU(),   # 4 x 12 x 12
        torch.nn.Conv2d(4, 8, 5, stride=2), torch.nn.ReLU(),   # 8 x 4 x 4
        torch.nn.Flatten(), torch.nn.Linear(128, 10))


def sigma_for(graph, protocol, mu, epochs, batches):
    """The noise multiplier at which every node's LDP mu is at most @mu:
    mu is the sensitivity over sigma, so one accounting at sigma = 1 gives
    it (dpgossip.account, no training)."""
    p = dpgossip.account(graph, rounds=epochs * batches, participation_interval=batches,
                         trust="ldp", attackers="all", protocol=protocol, sigma=1.0)
    return float(p["mu"].max()) / mu


# Each protocol's marker colour (exact in the PNG: a filled marker's
# interior is not antialiased), its line a lighter tint of it, and its
# marker diameter in points: D-SGD drawn first and larger, so that where
# both curves meet, D-SGD's ring shows around Mafalda's marker.
STYLE = {"dsgd": ("#1f77b4", "#9ecae1", 10, "DP-D-SGD"),
         "mafalda": ("#d62728", "#fc9272", 5, "Mafalda")}


def curves(means):
    """{protocol: (rounds, mean test loss over the seeds)} of the per-round
    means (the --csv table: round, test_loss, protocol, ...), in the
    order the protocols first appear."""
    out = {}
    for p in dict.fromkeys(means["protocol"]):
        m = means[means["protocol"] == p].groupby("round", sort=True).test_loss.mean()
        out[p] = ([int(r) for r in m.index], [float(v) for v in m.values])
    return out


def figure(means, path, title):
    """Draws curves(@means) into the PNG @path (640 x 400 pixels, Agg,
    deterministic: no date or version in the file) and embeds the curves,
    the axes' pixel box (origin top left) and limits as JSON."""
    try:
        import matplotlib
    except ImportError:
        raise SystemExit("the figure needs matplotlib (Debian's python3-matplotlib, installed "
                         "by scripts/install-deps.sh); pass --figure '' to skip it") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    c = curves(means)
    dpi = 100
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=dpi)
    fig.subplots_adjust(left=0.12, right=0.74, bottom=0.13, top=0.9)
    for z, (p, (x, y)) in enumerate(c.items()):
        marker, line, size, label = STYLE.get(p, ("#000000", "#999999", 6, p))
        ax.plot(x, y, color=line, lw=1.5, zorder=1)
        ax.plot(x, y, ls="none", marker="o", ms=size, color=marker, mec=marker, mew=0,
                zorder=2 + z, label=label)
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_xlabel("round (local steps)")
    ax.set_ylabel("mean test loss over the nodes")
    ax.set_title(title, fontsize=9)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False)
    fig.canvas.draw()
    box = ax.get_window_extent()  # pixels, origin bottom left
    height = fig.canvas.get_width_height()[1]
    meta = {"curves": c,
            "axes": [box.x0, height - box.y1, box.x1, height - box.y0],
            "xlim": list(ax.get_xlim()), "ylim": list(ax.get_ylim()),
            "style": {p: {"colour": STYLE[p][0], "diameter_px": STYLE[p][2] * dpi / 72}
                      for p in c if p in STYLE}}
    fig.savefig(path, dpi=dpi, metadata={"Software": None,
                                         "dpgossip-curves": json.dumps(meta)})
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graph", default=EGO)
    ap.add_argument("--limit", type=int, default=8000, help="records loaded (train + test)")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batches", type=int, default=5)
    ap.add_argument("--mu", type=float, default=10.0, help="every node's LDP guarantee")
    ap.add_argument("--lr", type=float, default=0.5)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--csv", help="write the per-round means here")
    ap.add_argument("--figure", default="torch_fashion_mnist.png",
                    help="the PNG of the mean test loss per round ('' for none)")
    a = ap.parse_args()
    dataset = f"idx:{FASHION},limit={a.limit}"
    rows, means = [], []
    for protocol in ("dsgd", "mafalda"):
        sigma = sigma_for(a.graph, protocol, a.mu, a.epochs, a.batches)
        for seed in range(1, a.seeds + 1):
            torch.manual_seed(seed)  # every node starts from this module's parameters
            r = dpgossip.train(a.graph, model=cnn(), dataset=dataset,
                               criterion=torch.nn.CrossEntropyLoss(), protocol=protocol,
                               epochs=a.epochs, batches=a.batches, lr=a.lr, sigma=sigma,
                               clip=1.0, seed=seed, eval_every=a.batches)
            last = r.means.iloc[-1]
            rows.append((protocol, seed, sigma, r.privacy["mu"].max(), last.test_loss,
                         last.test_accuracy))
            means.append(r.means.assign(protocol=protocol))
    print(f"{'protocol':<8} {'seed':>4} {'sigma':>8} {'max mu':>8} {'test loss':>9} "
          f"{'accuracy':>8}")
    for p, s, sg, mu, loss, acc in rows:
        print(f"{p:<8} {s:>4} {sg:>8.4f} {mu:>8.4f} {loss:>9.4f} {acc:>8.4f}")
    table = pd.concat(means)
    if a.csv:
        table.to_csv(a.csv, index=False)
    if a.figure:
        figure(table, a.figure, f"{os.path.basename(a.graph)}, mu = {a.mu:g} (LDP), "
               f"{a.seeds} seed{'s' if a.seeds > 1 else ''}, {a.epochs} x {a.batches} steps")
        print(f"figure: {a.figure}")


if __name__ == "__main__":
    main()
