#!/usr/bin/env bash
# Runs every benchmark built under BUILD/bench and prints its report.
set -euo pipefail
BUILD=${1:-build}
status=0
for b in "$BUILD"/bench/bench_*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b" || status=1
done
echo "== audit.sh"
bash "$(dirname "$0")/audit.sh" "$BUILD" || status=1
# The structured accountant's scaling in n and T (minutes; NS=... TS=... for a subset).
echo "== account_scale.sh"
bash "$(dirname "$0")/account_scale.sh" "$BUILD" || status=1
# D-SGD training on 10^5 and 10^6 nodes beside the engine's delivery (minutes; NS=... for a subset).
echo "== train_large.sh"
bash "$(dirname "$0")/train_large.sh" "$BUILD" || status=1
# Figure 2 with every node the attacker in turn, as n grows (minutes; NS=... for a subset).
echo "== figure2_scale.sh"
bash "$(dirname "$0")/figure2_scale.sh" "$BUILD" || status=1
exit $status
