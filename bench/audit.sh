#!/usr/bin/env bash
# bench/audit.sh [BUILD]: the audit's speed goal: Florentine, T = 10, attacker 0,
# victim 1, PNDP, D-SGD, TRIALS (default 100000) trials per world, every attack
# that applies (np and learned share the runs), once on 1 thread and once on
# THREADS (default 2): CPU seconds and wall of each (/usr/bin/time), and whether
# the two outputs are byte-identical (they must be). Not run by ctest.
set -euo pipefail
BUILD=${1:-build}
BIN=${DPGOSSIP:-$BUILD/dpgossip}
TRIALS=${TRIALS:-100000}
THREADS=${THREADS:-2}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for j in 1 "$THREADS"; do
  /usr/bin/time -f "%U %S %e %M" -o "$OUT/time-$j" \
    "$BIN" audit --generate florentine -T 10 -a 0 --victim 1 --trust pndp \
    --trials "$TRIALS" -j "$j" -q --format csv >"$OUT/out-$j"
  read -r user sys wall rss <"$OUT/time-$j"
  echo "audit: -j $j: $TRIALS trials per world: CPU $(echo "$user + $sys" | bc) s" \
    "(user $user, sys $sys), wall $wall s, max RSS $((rss / 1024)) MB"
done
cat "$OUT/out-1"
if cmp -s "$OUT/out-1" "$OUT/out-$THREADS"; then
  echo "audit: outputs of -j 1 and -j $THREADS are byte-identical"
else
  echo "audit: outputs of -j 1 and -j $THREADS DIFFER" >&2
  exit 1
fi
