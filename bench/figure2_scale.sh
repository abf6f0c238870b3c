#!/usr/bin/env bash
# bench/figure2_scale.sh [BUILD]: CPU seconds and peak RSS of Figure 2 with
# every node the attacker in turn (docs/figure2.md, "A 10,000-node graph"):
#   `figure privacy-vs-distance --generate regular:n=N,d=8,seed=1 -T 10
#    --trust pndp --attackers all` for N in NS (default 500 1000 2000 4000),
# then the exponent of a least-squares fit of log(cost) against log(N) and
# the CPU seconds per attacker. Each case runs under /usr/bin/time (user +
# system CPU seconds of every thread, max RSS). NS="500 1000" runs a subset.
# Prints a Markdown table and the fit on stdout. Not run by ctest (minutes).
set -euo pipefail
BUILD=${1:-build}
BIN=${DPGOSSIP:-$BUILD/dpgossip}
NS=${NS:-500 1000 2000 4000}
# shellcheck source=bench/scale_common.sh
. "$(dirname "$0")/scale_common.sh"
scale_require figure2_scale.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "| graph | T | attackers | CPU s | CPU ms per attacker | peak RSS MB |"
echo "|---|---|---|---|---|---|"
: >"$tmp/n.fit"
for n in $NS; do
  /usr/bin/time -f "%U %S %M" -o "$tmp/$n.time" "$BIN" figure privacy-vs-distance \
    --generate "regular:n=$n,d=8,seed=1" -T 10 --trust pndp --attackers all \
    --out "$tmp/$n.svg" -q >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  read -r cpu rss < <(scale_cost "$n")
  per=$(awk -v c="$cpu" -v n="$n" 'BEGIN { printf "%.1f", 1000 * c / n }')
  echo "| regular n=$n d=8 | 10 | $n | $cpu | $per | $rss |"
  echo "$n $cpu $rss" >>"$tmp/n.fit"
done
echo
echo "all attackers, regular d=8, T=10, in n: $(scale_fit "$tmp/n.fit" n)"
