#!/usr/bin/env python3
"""Figure 4 (reduced grid): final test accuracy against epsilon.

Reads the points.csv of the sweeps given on the command line (dpgossip run
output folders), groups the points by (method, mu) and writes, next to OUT.svg,
OUT.csv with one row per group: method, mu, epsilon, seeds, mean accuracy, its
95% confidence half-width (Student t over the seeds) and the per-seed values.
The SVG has one line per private method (log epsilon axis) and the
non-private mean as a dashed line. Python standard library only.

usage: figure4.py OUT.svg RESULTS_DIR [RESULTS_DIR...]
"""
import csv
import math
import os
import sys

T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 9: 2.262, 19: 2.093}
NAMES = {"nonprivate": "non-private D-SGD", "dsgd": "DP-D-SGD", "antipgd": "AntiPGD",
         "mafalda": "Mafalda-SGD"}
COLORS = {"nonprivate": "#444444", "dsgd": "#1f77b4", "antipgd": "#2ca02c", "mafalda": "#d62728"}


def read_groups(dirs):
    groups = {}
    for d in dirs:
        with open(os.path.join(d, "points.csv"), newline="") as f:
            for row in csv.DictReader(f):
                if row["status"] != "done":
                    continue
                key = (row["name"], float(row["mu"]))
                g = groups.setdefault(key, {"eps": float(row["epsilon"]), "acc": [],
                                            "seeds": []})
                g["acc"].append(float(row["final_test_accuracy"]))
                g["seeds"].append(int(row["seed"]))
    return groups


def stats(values):
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return mean, T95.get(n - 1, 1.96) * sd / math.sqrt(n)


def main():
    out, dirs = sys.argv[1], sys.argv[2:]
    groups = read_groups(dirs)
    rows = []
    for (name, mu), g in sorted(groups.items(), key=lambda kv: (list(NAMES).index(kv[0][0]),
                                                                 kv[0][1])):
        order = sorted(range(len(g["seeds"])), key=lambda i: g["seeds"][i])
        accs = [g["acc"][i] for i in order]
        mean, half = stats(accs)
        rows.append((name, mu, g["eps"], len(accs), mean, half, accs))
    base = os.path.splitext(out)[0]
    with open(base + ".csv.tmp", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["method", "mu", "epsilon", "seeds", "accuracy_mean", "ci95_half",
                    "per_seed"])
        for r in rows:
            w.writerow([r[0], r[1], "inf" if math.isinf(r[2]) else "%.4g" % r[2], r[3],
                        "%.4f" % r[4], "%.4f" % r[5], ";".join("%.4f" % a for a in r[6])])
    os.replace(base + ".csv.tmp", base + ".csv")

    # --- the SVG: log-x epsilon, linear-y accuracy
    W, H, L, R, TOP, B = 640, 420, 70, 170, 40, 55
    finite = [r for r in rows if math.isfinite(r[2])]
    xlo = math.log10(min(r[2] for r in finite)) - 0.15
    xhi = math.log10(max(r[2] for r in finite)) + 0.15
    ylo = max(0.0, min(r[4] - r[5] for r in rows) - 0.05)
    yhi = min(1.0, max(r[4] + r[5] for r in rows) + 0.05)
    ylo, yhi = math.floor(ylo * 10) / 10, math.ceil(yhi * 10) / 10

    def px(eps):
        return L + (math.log10(eps) - xlo) / (xhi - xlo) * (W - L - R)

    def py(acc):
        return H - B - (acc - ylo) / (yhi - ylo) * (H - TOP - B)

    s = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'font-family="sans-serif" font-size="12">' % (W, H),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="22" font-size="14">Figure 4 (reduced): Fashion-MNIST CNN on Facebook '
         'ego, final test accuracy</text>' % L]
    s.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>'
             % (L, TOP, W - L - R, H - TOP - B))
    for e in range(math.floor(xlo), math.floor(xhi) + 1):
        for m in range(1, 10):
            v = m * 10 ** e
            if xlo <= math.log10(v) <= xhi:
                x = px(v)
                s.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>'
                         % (x, TOP, x, H - B))
                if m in (1, 2, 5):
                    s.append('<text x="%.1f" y="%d" text-anchor="middle">%g</text>'
                             % (x, H - B + 16, v))
    y = ylo
    while y <= yhi + 1e-9:
        s.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                 % (L, py(y), W - R, py(y)))
        s.append('<text x="%d" y="%.1f" text-anchor="end">%.1f</text>' % (L - 6, py(y) + 4, y))
        y += 0.1
    s.append('<text x="%d" y="%d" text-anchor="middle">epsilon (delta = 1e-6, LDP)</text>'
             % ((L + W - R) / 2, H - 15))
    s.append('<text x="18" y="%d" transform="rotate(-90 18 %d)" text-anchor="middle">'
             'final test accuracy (mean over nodes; 95%% CI over seeds)</text>'
             % ((TOP + H - B) / 2, (TOP + H - B) / 2))
    legend_y = TOP + 10
    for name in NAMES:
        pts = [r for r in rows if r[0] == name]
        if not pts:
            continue
        c = COLORS[name]
        if name == "nonprivate":
            mean = sum(r[4] for r in pts) / len(pts)
            s.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" '
                     'stroke-dasharray="6,4"/>' % (L, py(mean), W - R, py(mean), c))
        else:
            pts.sort(key=lambda r: r[2])
            s.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>'
                     % (c, " ".join("%.1f,%.1f" % (px(r[2]), py(r[4])) for r in pts)))
            for r in pts:
                x = px(r[2])
                s.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>'
                         % (x, py(r[4] - r[5]), x, py(r[4] + r[5]), c))
                s.append('<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/>' % (x, py(r[4]), c))
        s.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>'
                 % (W - R + 12, legend_y, W - R + 36, legend_y, c,
                    ' stroke-dasharray="6,4"' if name == "nonprivate" else ""))
        s.append('<text x="%d" y="%d">%s</text>' % (W - R + 42, legend_y + 4, NAMES[name]))
        legend_y += 20
    s.append("</svg>")
    with open(out + ".tmp", "w") as f:
        f.write("\n".join(s) + "\n")
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
