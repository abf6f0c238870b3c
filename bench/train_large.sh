#!/usr/bin/env bash
# bench/train_large.sh [BUILD]: D-SGD on random 8-regular graphs of 10^5 and 10^6
# nodes (linear model, d = 10, --trust none, the default sampled evaluation),
# each beside the engine's own message delivery on a random graph of the same
# size (build/bench/bench_engine), measured in the same run. Per size: CPU
# seconds, peak resident memory and its share per node, messages, CPU per
# message and its ratio to the engine's CPU per delivery (goal: within 5x;
# the million-node run under 10 minutes and 16 GB).
# NS="100000" for a subset. Not run by ctest.
set -euo pipefail
BUILD=${1:-build}
BIN=${DPGOSSIP:-$BUILD/dpgossip}
NS=${NS:-100000 1000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in $NS; do
  # The two runs: 16 and 20 rounds, 8 and 4 training records per node and step.
  if [ "$n" -ge 1000000 ]; then data=$((5 * n)) epochs=5 batches=4; else data=$((10 * n)) epochs=2 batches=8; fi
  "$BUILD/bench/bench_engine" 1000 100000 "$n" 10000000 > "$tmp/engine"
  engine_us=$(awk '/^engine.message_cpu_seconds/ { c = $2 } /^engine.message_events / { e = $2 }
                   END { printf "%.3f", 1e6 * c / e }' "$tmp/engine")
  /usr/bin/time -v "$BIN" train --generate "regular:n=$n,d=8,seed=1" --protocol dsgd \
    --dataset "synthetic:linear,n=$data,d=10" --model linear --epochs $epochs --batches $batches \
    --trust none -q --out "$tmp/m.csv" > "$tmp/out" 2> "$tmp/time"
  awk -v n="$n" -v eus="$engine_us" '
    FNR == NR && /messages, wall time/ { for (i = 1; i < NF; i++) if ($(i + 1) == "messages,") msgs = $i
                                         rounds = $5 }
    FNR == NR && /^train: evaluation:/ { sub(/^train: /, ""); sub(/ \(--eval.*/, ""); ev = $0 }
    FNR != NR && /User time/ { u = $NF } FNR != NR && /System time/ { s = $NF }
    FNR != NR && /Maximum resident/ { rss = $NF }
    END { cpu = u + s; us = 1e6 * cpu / msgs
          printf "train_large.n %d (%d rounds)\ntrain_large.%d.cpu_s %.1f\n", n, rounds, n, cpu
          printf "train_large.%d.peak_rss_mb %.0f\ntrain_large.%d.rss_per_node_kb %.2f\n", n, rss / 1024, n, rss / n
          printf "train_large.%d.messages %d\ntrain_large.%d.us_per_message %.3f\n", n, msgs, n, us
          printf "train_large.%d.engine_us_per_delivery %.3f\ntrain_large.%d.ratio_to_engine %.2f\n", n, eus, n, us / eus
          printf "train_large.%d.%s\n", n, ev }' "$tmp/out" "$tmp/time"
done
