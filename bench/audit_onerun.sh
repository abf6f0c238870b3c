#!/usr/bin/env bash
# bench/audit_onerun.sh [BUILD]: the one-run audit of real training
# (`dpgossip audit --attack onerun`, Steinke, Nasr and Jagielski 2023): D-SGD on the
# Facebook ego graph, California housing with an MLP, under LDP, at accounted
# mu in {1, 2, 5, 10} (sigma = sqrt(k) / mu: each record, canaries included,
# joins k steps of its node). Prints the Markdown table, the empirical epsilon
# lower bound (95%) beside the accounted epsilon at the same delta, and each
# run's CPU seconds on stderr. MUS="1 2" runs a subset; CANARIES (default
# 5000), EPOCHS (20, the paper's housing setup), BATCHES (16) and SEED (1)
# change the setup. Not run by ctest.
set -euo pipefail
BUILD=${1:-build}
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN=${DPGOSSIP:-$BUILD/dpgossip}
GRAPH=${GRAPH:-$ROOT/data/graphs/facebook-ego-414-lcc.edges}
DATA=${DATA:-$ROOT/data/california/cal_housing.data}
MUS=${MUS:-1 2 5 10}
CANARIES=${CANARIES:-5000}
EPOCHS=${EPOCHS:-20}
BATCHES=${BATCHES:-16}
SEED=${SEED:-1}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

echo "| mu (accounted) | sigma | epsilon (accounted) | epsilon lower bound (95%) | right guesses | test MSE |"
echo "|---|---|---|---|---|---|"
for MU in $MUS; do
  SIGMA=$(awk -v k="$EPOCHS" -v mu="$MU" 'BEGIN { printf "%.17g", sqrt(k) / mu }')
  /usr/bin/time -f "audit_onerun: mu = $MU: %U s user, %M KB" \
    "$BIN" audit --attack onerun --graph "$GRAPH" --dataset "california:$DATA" --model mlp:hidden=64 \
    -k "$EPOCHS" -b "$BATCHES" --lr 0.2 --clip 1 --sigma "$SIGMA" --canaries "$CANARIES" \
    --delta 1e-6 --seed "$SEED" --format csv >"$TMP/row.csv"
  # Columns: protocol,trust,attack,sigma,epochs,batches,canaries,guesses,
  # correct,epsilon_lower,epsilon,mu,delta,confidence,test_loss,status,seed
  awk -F, 'NR == 2 { printf "| %.4g | %.4g | %.4g | %.4g | %d / %d | %.4g |\n", $12, $4, $11, $10, $9, $8, $15 }' "$TMP/row.csv"
done
