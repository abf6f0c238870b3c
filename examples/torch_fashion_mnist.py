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
accuracy over the nodes; --csv FILE writes the per-round means.
"""

import argparse
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
    if a.csv:
        pd.concat(means).to_csv(a.csv, index=False)


if __name__ == "__main__":
    main()
