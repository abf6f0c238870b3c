#!/usr/bin/env bash
# bench/mafalda_sketch.sh [BUILD]: where the time and memory of Mafalda's
# expected objective under STUNner churn go (docs/results.md, "Mafalda on a
# churned overlay"): the exact Gram matrix of the trace (dense, O(n^3 T^2))
# against its sketch (--probes K over the sparse W_t, O(K (T^2 nnz + T^3 n))),
# and the sketch's error against the exact objective where both run.
#   exact   regular:n=N,d=58 (the overlay's mean degree), T = 4, N in $EXACT_N;
#           and n = 1000 at T = 8 (T's exponent)
#   sketch  the same graphs at T = 100 (k = 4, b = 25), --probes $PROBES
#   error   regular:n=$ERR_N,d=58 at T = 100: exact, and sketched with
#           --probes 16 and 64 under seeds 1 .. $ERR_SEEDS (the probes' seed;
#           the trace's node-to-user map is seed=1 in the spec throughout)
# Prints one line per run: what, wall s, CPU s, peak RSS (GNU time), the
# schedule's Gram seconds and every strategy's loss (+- standard error).
# Not run by ctest.
set -euo pipefail
BUILD=${1:-build}
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN=${DPGOSSIP:-$BUILD/dpgossip}
OUT=${OUT:-$BUILD/bench/mafalda-sketch}
SCHED="churn:trace=$ROOT/data/real/stunner-sessions-100.txt.gz,format=stunner,scale=600,seed=1"
EXACT_N=${EXACT_N:-500 1000 2000}
SKETCH_N=${SKETCH_N:-1000 2000 5000}
PROBES=${PROBES:-16}
ERR_N=${ERR_N:-300}
ERR_SEEDS=${ERR_SEEDS:-3}
mkdir -p "$OUT"

run() { # run NAME ARGS...: one timed mafalda run, its JSON in OUT/NAME.json
  local name=$1
  shift
  /usr/bin/time -f '%e %U %S %M' -o "$OUT/$name.time" "$BIN" mafalda --format json -q \
    --schedule "$SCHED" "$@" >"$OUT/$name.json"
  python3 - "$OUT/$name" <<'PY'
import json, sys
base = sys.argv[1]
wall, user, sys_, rss = open(base + ".time").read().split()[-4:]
d = json.load(open(base + ".json"))
se = d.get("loss_std_error", {})
loss = " ".join(
    f"{k}={v:.6g}" + (f"+-{se[k]:.3g}" if se.get(k) is not None else "")
    for k, v in d["loss"].items() if v is not None)
print(f"{base.split('/')[-1]}: wall {wall} s, CPU {float(user) + float(sys_):.1f} s, "
      f"peak {int(rss) / 1e6:.2f} GB, gram {d['schedule']['seconds']:.2f} s: {loss}")
PY
}

for n in $EXACT_N; do
  run "exact-n$n-T4" --generate "regular:n=$n,d=58,seed=1" -k 2 -b 2 --baselines dp-d-sgd
done
run "exact-n1000-T8" --generate "regular:n=1000,d=58,seed=1" -k 2 -b 4 --baselines dp-d-sgd
for n in $SKETCH_N; do
  run "sketch-n$n-T100-K$PROBES" --generate "regular:n=$n,d=58,seed=1" -k 4 -b 25 \
    --probes "$PROBES" --baselines dp-d-sgd
done
run "exact-n$ERR_N-T100" --generate "regular:n=$ERR_N,d=58,seed=1" -k 4 -b 25
for K in 16 64; do
  for s in $(seq 1 "$ERR_SEEDS"); do
    run "sketch-n$ERR_N-T100-K$K-seed$s" --generate "regular:n=$ERR_N,d=58,seed=1" -k 4 -b 25 \
      --probes "$K" --seed "$s"
  done
done
