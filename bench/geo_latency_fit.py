#!/usr/bin/env python3
"""The default constants of the geo: latency model, fitted to the overlay.

Least squares of each directed link's one-way latency (ms) on the great-circle
distance (km) between its two nodes' positions, over the pseudo-mainnet
overlay's measured links (data/real/); the defaults are this fit over all
links. A position shared by more than 1% of the nodes is a placeholder rather
than a location: a second fit leaves out the links that touch it. The jitter is the sigma of a mean-1 log-normal factor whose
coefficient of variation is that of latency / fitted line, so that the model's
delays have the fitted mean and the links' spread around it.

Usage: python3 bench/geo_latency_fit.py [NODES.csv.gz EDGES.csv.gz]
(default: the overlay's files under data/real/). Prints one line per fit.
"""
import collections
import csv
import gzip
import math
import os
import sys

EARTH_KM = 6371.0088  # the IUGG mean radius, as sim/latency_geo.c


def great_circle_km(lon1, lat1, lon2, lat2):
    """Haversine distance, the formula sim/latency_geo.c evaluates."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_KM * math.asin(min(1.0, math.sqrt(h)))


def fit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    slope = sxy / sxx
    icpt = my - slope * mx
    rss = sum((y - icpt - slope * x) ** 2 for x, y in zip(xs, ys))
    ratio = [y / (icpt + slope * x) for x, y in zip(xs, ys)]
    mr = sum(ratio) / n
    cv = math.sqrt(sum((r - mr) ** 2 for r in ratio) / (n - 1)) / mr
    return {
        "links": n,
        "intercept_ms": icpt,
        "slope_ms_per_km": slope,
        "residual_sd_ms": math.sqrt(rss / (n - 2)),
        "r2": sxy * sxy / (sxx * syy),
        "ratio_cv": cv,
        "jitter": math.sqrt(math.log1p(cv * cv)),
    }


def main():
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "real")
    nodes = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "pseudo-mainnet-nodes-v1.csv.gz")
    edges = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "pseudo-mainnet-edges-v1.csv.gz")
    pos = {}
    with gzip.open(nodes, "rt") as f:
        for row in csv.DictReader(f):
            pos[int(row["index"])] = (float(row["long"]), float(row["lat"]))
    shared = collections.Counter(pos.values())
    placeholder = {p for p, c in shared.items() if c > len(pos) / 100}
    all_x, all_y, x, y = [], [], [], []
    with gzip.open(edges, "rt") as f:
        for row in csv.DictReader(f):
            a, b = pos[int(row["source"])], pos[int(row["target"])]
            d, ms = great_circle_km(*a, *b), float(row["latency"])
            all_x.append(d)
            all_y.append(ms)
            if a not in placeholder and b not in placeholder:
                x.append(d)
                y.append(ms)
    for p in sorted(placeholder):
        print(f"placeholder position long {p[0]} lat {p[1]}: {shared[p]} of {len(pos)} nodes")
    for name, xs, ys in (("all links (the defaults)", all_x, all_y), ("located links", x, y)):
        r = fit(xs, ys)
        print(f"{name}: {r['links']} links, latency = {r['intercept_ms']:.4g} ms + "
              f"{r['slope_ms_per_km']:.4g} ms/km x distance, residual sd {r['residual_sd_ms']:.4g} ms, "
              f"R^2 {r['r2']:.4f}, CV of latency / fit {r['ratio_cv']:.4g} (jitter {r['jitter']:.4g})")


if __name__ == "__main__":
    main()
