#!/usr/bin/env python3
"""Train D-SGD with DP noise from Python and read its privacy per node.

Trains a linear model on synthetic data over a graph (default: the
Florentine families, 15 nodes), k = 8 epochs of b = 4 batches, sigma = 1,
then prints the mean test loss per evaluated round and each node's
guarantee for the whole run against node 0 as the attacker, by hop
distance: under PNDP (the attacker sees only its own messages) privacy
grows with the distance, under LDP (it sees every message) every node gets
mu = sqrt(k) / sigma.

    pip install --no-build-isolation --no-index ./python   # once, after make install
    python3 examples/train_privacy.py [GRAPH]

(or, from a build tree: PYTHONPATH=build/python /usr/bin/python3 examples/...)
GRAPH: a generator spec or an edge-list file.
"""
import os
import pathlib
import sys

import dpgossip

g = sys.argv[1] if len(sys.argv) > 1 else "florentine"
graph = pathlib.Path(g) if os.path.exists(g) else g
run = dpgossip.train(graph, dataset="synthetic:linear,n=3000,d=10,noise=0.1,seed=1",
                     epochs=8, batches=4, lr=0.3, sigma=1.0, eval_every=8, seed=1,
                     trust=["pndp", "ldp"], attackers=0)

print(f"{g}: {run.info['nodes']} nodes, T = {run.info['rounds']} rounds")
print("\nmean test loss per round")
print(run.means[["round", "test_loss"]].to_string(index=False, float_format="{:.4g}".format))

# The attacker's own distance is 0 and it is no victim: hops 1, 2, ...
privacy = run.privacy.copy()
privacy["distance"] = privacy["distance"].astype("Int64")
table = (privacy.pivot_table(index="distance", columns="trust", values=["mu", "epsilon"],
                             aggfunc="mean")
         .swaplevel(axis=1).sort_index(axis=1))
table.columns = [f"{trust}_{what}" for trust, what in table.columns]
table.insert(0, "victims", privacy[privacy.trust == "pndp"].groupby("distance").size())
print(f"\nprivacy against node 0 by hop distance (epsilon at delta = "
      f"{privacy['delta'].iloc[0]:g})")
print(table.to_string(float_format="{:.4g}".format))
