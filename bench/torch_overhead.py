#!/usr/bin/env python3
"""What dpgossip.train with a torch model costs over torch alone (issue 35).

Two timings of the same work, alternated in one process (--repeat times,
the minimum of each kept): (a) dpgossip.train with the example CNN of
examples/torch_fashion_mnist.py on N nodes for T = epochs x batches local
steps (the protocol, noise, gossip and LDP accounting included), and (b) a
plain torch loop that computes, for the same nodes, steps and batch sizes,
the same per-example gradients (functorch vmap), clips them, sums them,
takes a local step and evaluates every node at the end as dpgossip.train
does by default: the least any simulator of this run must do. Prints
both CPU times and their ratio; --scale N runs (a) alone on a larger graph
and prints its peak memory (ru_maxrss).

    python3 bench/torch_overhead.py                 # 100 nodes, T = 200
    python3 bench/torch_overhead.py --scale 1000 --epochs 2   # 1000 nodes, T = 20
"""

import argparse
import os
import resource
import sys
import time

import numpy as np
import torch
from functorch import grad_and_value, make_functional, vmap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
import dpgossip  # noqa: E402
from torch_fashion_mnist import FASHION, cnn  # noqa: E402


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def run_dpgossip(graph, dataset, epochs, batches, trust, eval_nodes=None):
    torch.manual_seed(1)
    t0 = cpu()
    r = dpgossip.train(graph, model=cnn(), dataset=dataset, criterion=torch.nn.CrossEntropyLoss(),
                       protocol="dsgd", epochs=epochs, batches=batches, lr=0.5, sigma=1.0,
                       clip=1.0, seed=1, trust=trust, threads=1, eval_nodes=eval_nodes)
    return cpu() - t0, r


def run_plain(n, X, y, Xte, yte, epochs, batches):
    """The per-example gradients of every node at every step, on batches of
    the sizes dpgossip deals (n_train records over n nodes, b batches)."""
    torch.manual_seed(1)
    model = cnn()
    fmodel, params = make_functional(model)
    crit = torch.nn.CrossEntropyLoss()

    def loss1(ps, x, t):
        return crit(fmodel(ps, x.unsqueeze(0)), t.unsqueeze(0))

    per_example = vmap(grad_and_value(loss1), in_dims=(None, 0, 0))
    node_params = [tuple(p.detach().clone() for p in params) for _ in range(n)]
    rng = np.random.default_rng(1)
    perm = torch.from_numpy(rng.permutation(X.shape[0]))
    share = np.array_split(perm.numpy(), n)
    t0 = cpu()
    for t in range(epochs * batches):
        j = t % batches
        for u in range(n):
            m = len(share[u])
            idx = torch.from_numpy(share[u][j * m // batches:(j + 1) * m // batches])
            grads, _ = per_example(node_params[u], X[idx], y[idx])
            flat = torch.cat([g.reshape(len(idx), -1) for g in grads], dim=1)
            norms = flat.norm(dim=1)
            scale = torch.where(norms > 1.0, 1.0 / norms, torch.ones_like(norms))
            total = (flat * scale.unsqueeze(1)).sum(dim=0)
            step = total.split([p.numel() for p in node_params[u]])
            node_params[u] = tuple(p - 0.01 * s.view(p.shape) for p, s in zip(node_params[u], step))
    # The evaluation dpgossip.train makes at the end (its default: every
    # node, its training records' loss, the whole test set's loss and
    # accuracy).
    with torch.no_grad():
        for u in range(n):
            idx = torch.from_numpy(share[u])
            crit(fmodel(node_params[u], X[idx]), y[idx])
            z = fmodel(node_params[u], Xte)
            crit(z, yte), (z.argmax(dim=1) == yte).double().mean()
    return cpu() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=100)
    ap.add_argument("--degree", type=int, default=6)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batches", type=int, default=10)
    ap.add_argument("--limit", type=int, default=12500, help="Fashion-MNIST records loaded")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--scale", type=int, help="nodes of the memory run (alone)")
    a = ap.parse_args()
    torch.set_num_threads(1)
    dataset = f"idx:{FASHION},limit={a.limit}"
    if a.scale:
        graph = f"regular:n={a.scale},d={a.degree},seed=1"
        # 100 nodes evaluated (on the whole test set): the evaluation of
        # every node would dominate the run and measures nothing of scale.
        secs, r = run_dpgossip(graph, dataset, a.epochs, a.batches, "ldp", eval_nodes=100)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
        print(f"{a.scale} nodes, T = {a.epochs * a.batches}: {secs:.1f} CPU s, peak {peak:.2f} GB, "
              f"final mean test accuracy {r.means.test_accuracy.iloc[-1]:.3f}, "
              f"largest LDP mu {r.privacy.mu.max():.4g}")
        return
    graph = f"regular:n={a.nodes},d={a.degree},seed=1"
    Xtr, ytr, Xte, yte, _, _ = dpgossip._torch.task_data(dataset, 1, 0.2)
    X, y = torch.from_numpy(Xtr).float(), torch.from_numpy(ytr).long()
    Xte, yte = torch.from_numpy(Xte).float(), torch.from_numpy(yte).long()
    best_d = best_p = float("inf")
    for _ in range(a.repeat):
        best_d = min(best_d, run_dpgossip(graph, dataset, a.epochs, a.batches, "ldp")[0])
        best_p = min(best_p, run_plain(a.nodes, X, y, Xte, yte, a.epochs, a.batches))
    print(f"{a.nodes} nodes, T = {a.epochs * a.batches}, {X.shape[0]} training records: "
          f"dpgossip.train {best_d:.1f} CPU s, plain torch loop {best_p:.1f} CPU s, "
          f"ratio {best_d / best_p:.2f}")


if __name__ == "__main__":
    main()
