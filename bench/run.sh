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
exit $status
