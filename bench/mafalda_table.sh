#!/usr/bin/env bash
# bench/mafalda_table.sh [BUILD]: the "Mafalda at long horizons" table of docs/results.md:
# the loss sens^2 tr(H (C^T C)^-1) of every strategy on the Facebook ego graph
# (uniform gossip, b = 16) at T = 320 ... 10,000, each with its ratio to the
# dense optimum where that is known.
#   skip    `mafalda -k K -b 16 --toeplitz-band 32 --skip-dense`: every
#           structured strategy (BLT, Toeplitz fit, BSR, DP-D-SGD), any T;
#   dense   the same without --skip-dense: Mafalda and DMF (T <= DENSE_MAX,
#           default 1024: the dense optimizer is O(T^3) per iteration;
#           T = 2048 takes 36 min wall on this machine);
#   banded  `... --band BAND` (default 32): banded Mafalda (and banded DMF),
#           T <= BANDED_MAX (default 4096).
# Each run's JSON is kept in OUT (default BUILD/bench/mafalda-table) and reused
# when present, so a long case is computed once: delete a file to redo it.
# HORIZONS="320 1024" runs a subset. Prints the Markdown table on stdout and
# each run's CPU seconds per strategy on stderr. Not run by ctest.
set -euo pipefail
BUILD=${1:-build}
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN=${DPGOSSIP:-$BUILD/dpgossip}
OUT=${OUT:-$BUILD/bench/mafalda-table}
GRAPH=${GRAPH:-$ROOT/data/graphs/facebook-ego-414-lcc.edges}
HORIZONS=${HORIZONS:-320 1024 2048 4096 10000}
DENSE_MAX=${DENSE_MAX:-1024}
BANDED_MAX=${BANDED_MAX:-4096}
BAND=${BAND:-32}
B=16
mkdir -p "$OUT"

run() { # run FILE ARGS...: one mafalda run, its JSON written only when complete
  local file=$1
  shift
  if [ -s "$file" ]; then return; fi
  echo "mafalda_table: $*" >&2
  "$BIN" mafalda --graph "$GRAPH" -b "$B" --toeplitz-band 32 --format json -q "$@" >"$file.part"
  mv "$file.part" "$file"
}

for T in $HORIZONS; do
  if [ $((T % B)) -ne 0 ]; then
    echo "mafalda_table: T = $T is not a multiple of b = $B" >&2
    exit 2
  fi
  k=$((T / B))
  run "$OUT/T$T-skip.json" -k "$k" --skip-dense
  if [ "$T" -le "$DENSE_MAX" ]; then
    run "$OUT/T$T-dense.json" -k "$k"
  fi
  if [ "$T" -le "$BANDED_MAX" ]; then
    run "$OUT/T$T-band$BAND.json" -k "$k" --band "$BAND"
  fi
done

python3 - "$OUT" "$BAND" $HORIZONS <<'EOF'
import json, math, os, sys
out, band, horizons = sys.argv[1], sys.argv[2], [int(t) for t in sys.argv[3:]]
cols = [("mafalda", "Mafalda", "dense"), ("mafalda", f"banded {band}", "banded"),
        ("blt", "BLT", "any"), ("toeplitz", "toeplitz 32", "any"),
        ("dmf", "DMF", "dense"), ("bsr", "BSR", "any"), ("dp-d-sgd", "DP-D-SGD", "any")]
def num(v):  # 2.781e5, as docs/results.md writes them
    return f"{v:.3e}".replace("e+0", "e").replace("e+", "e")
def load(name):
    path = os.path.join(out, name)
    return json.load(open(path)) if os.path.exists(path) else None
print("| T | " + " | ".join(c[1] for c in cols) + " |")
print("|---" * (len(cols) + 1) + "|")
for T in horizons:
    dense = load(f"T{T}-dense.json")
    structured = load(f"T{T}-skip.json")
    banded = load(f"T{T}-band{band}.json")
    ref = dense["loss"]["mafalda"] if dense else None
    cells = []
    for key, _, source in cols:
        run = {"dense": dense, "banded": banded, "any": structured}[source]
        v = run["loss"].get(key) if run else None
        if v is None or (isinstance(v, float) and math.isnan(v)):
            cells.append("—")
        elif ref and not (source == "dense" and key == "mafalda"):
            cells.append(f"{num(v)} ({v / ref:.3f})")
        else:
            cells.append(num(v))
        if run and v is not None:
            secs = run.get("strategy_seconds", {}).get(key)
            if secs is not None:
                print(f"T = {T} {key} ({source}): {secs:.1f} CPU s", file=sys.stderr)
    print(f"| {T:,} | " + " | ".join(cells) + " |")
EOF
