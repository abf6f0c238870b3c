#!/usr/bin/env python3
"""Figure 2's table (docs/figure2.md, "Measured gap"): mean RDP (alpha = 2) of
DP-D-SGD under PNDP per hop distance, every node in turn the attacker, this
accounting against Muffliato's original bound; T = 10, sigma = 1.

    python3 examples/figure2_table.py [GRAPH...]   # after pip install ./python
    PYTHONPATH=build/python /usr/bin/python3 examples/figure2_table.py   # a build tree

GRAPH: generator specs or edge-list files (default: florentine), e.g.
data/graphs/facebook-ego-414-lcc.edges "erdos:n=100,p=0.2,seed=1,connected=true".
"""
import os
import pathlib
import sys

import dpgossip

for g in sys.argv[1:] or ["florentine"]:
    graph = pathlib.Path(g) if os.path.exists(g) else g
    # The paper's Thm 5.2 sensitivity, as its Figure 2 (the default, auto,
    # prices exactly where cheap: 9.51 at distance 1, docs/figure2.md).
    df = dpgossip.account(graph, rounds=10, trust="pndp", attackers="all", compare="muffliato",
                          sensitivity="bound")
    table = df.groupby("distance").agg(pairs=("rdp", "size"), ours=("rdp", "mean"),
                                       muffliato=("muffliato_rdp", "mean"))
    table["ratio"] = table.muffliato / table.ours
    print(f"{g}\n{table.to_string(float_format='{:.3g}'.format)}\n")
