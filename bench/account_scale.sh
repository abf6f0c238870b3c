#!/usr/bin/env bash
# bench/account_scale.sh [BUILD]: CPU seconds and peak RSS of the exact
# structured accountant (Kalman engine; PNDP, D-SGD, one attacker, all
# victims) as the graph and the horizon grow, and the exponents of a
# least-squares fit of log(cost) against log(n) and log(T):
#   in n  `account --generate regular:n=N,d=8,seed=1 -T 100 --trust pndp -a 0`
#         for N in NS (default 1000 2000 5000 10000);
#   in T  `account --generate barabasi:n=1000,m=3,seed=1 -T T --trust pndp -a 0`
#         for T in TS (default 50 100 200 320).
# Each case runs under /usr/bin/time (user + system CPU seconds, max RSS).
# NS="1000 2000" TS="50 100" runs a subset. Prints a Markdown table and the
# fits on stdout. Not run by ctest (minutes to tens of minutes).
set -euo pipefail
BUILD=${1:-build}
BIN=${DPGOSSIP:-$BUILD/dpgossip}
NS=${NS:-1000 2000 5000 10000}
TS=${TS:-50 100 200 320}
TIME=/usr/bin/time
if [ ! -x "$TIME" ]; then
  echo "account_scale.sh: $TIME is needed (Debian package 'time')" >&2
  exit 1
fi
if [ ! -x "$BIN" ]; then
  echo "account_scale.sh: $BIN not found: build first (make build)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure NAME ARGS...: "cpu_seconds rss_mb" of one accounting, its output discarded.
measure() {
  local name=$1
  shift
  "$TIME" -f "%U %S %M" -o "$tmp/$name.time" "$BIN" account "$@" -q >/dev/null
  awk '{ printf "%.1f %.0f\n", $1 + $2, $3 / 1024 }' "$tmp/$name.time"
}

# fit FILE: slope of log(column 2) and log(column 3) against log(column 1).
fit() {
  awk '{ x = log($1); for (c = 2; c <= 3; c++) { y = log($c); sx[c] += x; sy[c] += y;
           sxx[c] += x * x; sxy[c] += x * y } ; k++ }
       END { for (c = 2; c <= 3; c++) {
               d = k * sxx[c] - sx[c] * sx[c];
               s[c] = d > 0 ? (k * sxy[c] - sx[c] * sy[c]) / d : 0 }
             printf "time ~ %s^%.2f, peak RSS ~ %s^%.2f\n", var, s[2], var, s[3] }' var="$2" "$1"
}

echo "| graph | T | CPU s | peak RSS MB |"
echo "|---|---|---|---|"
: >"$tmp/n.fit"
for n in $NS; do
  read -r cpu rss < <(measure "n$n" --generate "regular:n=$n,d=8,seed=1" -T 100 --trust pndp -a 0)
  echo "| regular n=$n d=8 | 100 | $cpu | $rss |"
  echo "$n $cpu $rss" >>"$tmp/n.fit"
done
: >"$tmp/t.fit"
for t in $TS; do
  read -r cpu rss < <(measure "t$t" --generate "barabasi:n=1000,m=3,seed=1" -T "$t" --trust pndp -a 0)
  echo "| barabasi n=1000 m=3 | $t | $cpu | $rss |"
  echo "$t $cpu $rss" >>"$tmp/t.fit"
done
echo
echo "regular d=8, T=100, in n: $(fit "$tmp/n.fit" n)"
echo "barabasi n=1000, in T: $(fit "$tmp/t.fit" T)"
