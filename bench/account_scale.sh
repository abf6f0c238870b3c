#!/usr/bin/env bash
# bench/account_scale.sh [BUILD]: CPU seconds and peak RSS of the exact
# structured accountant (Kalman engine; PNDP, D-SGD, one attacker, all
# victims) as the graph and the horizon grow, and the exponents of a
# least-squares fit of log(cost) against log(n) and log(T):
#   in n  `account --generate regular:n=N,d=8,seed=1 -T 100 --trust pndp -a 0`
#         for N in NS (default 1000 2000 5000 10000);
#   in T  `account --generate barabasi:n=1000,m=3,seed=1 -T T --trust pndp -a 0`
#         for T in TS (default 50 100 200 320).
# The observer path (`--path observer`: the run simulated, the streaming
# accountant), on the same Barabasi graph:
#   in T  for T in OBS_TS (default 20 40 80 160 320), D-SGD under PNDP, and
#         for T in DECOR_TS (default the same), DECOR under SecLDP;
#   ego   on data/graphs/facebook-ego-414-lcc.edges at T = EGO_T (default
#         320), the observer path's CPU seconds over the structured path's.
# DECOR (edge secrets) on the structured path, in n:
#   `account --generate regular:n=N,d=8,seed=1 -T 100 --trust TRUST -a 0 -p decor`
#         for N in DECOR_NS (default 1000 2000 5000 10000), TRUST secldp (the
#         closed form: one Cholesky of the n x n noise covariance) and pndp
#         (the Kalman engine with the secrets' Laplacian in the injection).
# Each case runs under /usr/bin/time (user + system CPU seconds, max RSS).
# NS="1000 2000" TS="50 100" runs a subset; an empty list or T skips a part. Prints a Markdown table and the
# fits on stdout. Not run by ctest (minutes to tens of minutes).
set -euo pipefail
BUILD=${1:-build}
BIN=${DPGOSSIP:-$BUILD/dpgossip}
NS=${NS-1000 2000 5000 10000}
TS=${TS-50 100 200 320}
# shellcheck source=bench/scale_common.sh
. "$(dirname "$0")/scale_common.sh"
scale_require account_scale.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure NAME ARGS...: "cpu_seconds rss_mb" of one accounting, its output discarded.
measure() {
  local name=$1
  shift
  /usr/bin/time -f "%U %S %M" -o "$tmp/$name.time" "$BIN" account "$@" -q >/dev/null
  scale_cost "$name"
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
OBS_TS=${OBS_TS-20 40 80 160 320}
DECOR_TS=${DECOR_TS-$OBS_TS}
EGO_T=${EGO_T-320}
BA="barabasi:n=1000,m=3,seed=1"
: >"$tmp/o.fit"
for t in $OBS_TS; do
  read -r cpu rss < <(measure "o$t" --generate "$BA" -T "$t" --trust pndp -a 0 --path observer)
  echo "| barabasi n=1000 m=3, observer | $t | $cpu | $rss |"
  echo "$t $cpu $rss" >>"$tmp/o.fit"
done
: >"$tmp/d.fit"
for t in $DECOR_TS; do
  read -r cpu rss < <(measure "d$t" --generate "$BA" -T "$t" --trust secldp -a 0 \
    --protocol decor --path observer)
  echo "| barabasi n=1000 m=3, observer, DECOR SecLDP | $t | $cpu | $rss |"
  echo "$t $cpu $rss" >>"$tmp/d.fit"
done
DECOR_NS=${DECOR_NS-1000 2000 5000 10000}
for trust in secldp pndp; do
  : >"$tmp/dn$trust.fit"
  for n in $DECOR_NS; do
    read -r cpu rss < <(measure "dn$trust$n" --generate "regular:n=$n,d=8,seed=1" -T 100 \
      --trust "$trust" -a 0 -p decor)
    echo "| regular n=$n d=8, DECOR $trust | 100 | $cpu | $rss |"
    echo "$n $cpu $rss" >>"$tmp/dn$trust.fit"
  done
done
if [ -n "$EGO_T" ]; then
  ego="$(dirname "$0")/../data/graphs/facebook-ego-414-lcc.edges"
  for path in structured observer; do
    read -r cpu rss < <(measure "ego$path" --graph "$ego" -T "$EGO_T" --trust pndp -a 0 \
      --path "$path")
    echo "| facebook-ego-414, $path | $EGO_T | $cpu | $rss |"
    echo "$cpu" >"$tmp/ego.$path"
  done
fi
echo
[ -s "$tmp/n.fit" ] && echo "regular d=8, T=100, in n: $(scale_fit "$tmp/n.fit" n)"
[ -s "$tmp/t.fit" ] && echo "barabasi n=1000, in T: $(scale_fit "$tmp/t.fit" T)"
[ -s "$tmp/o.fit" ] && echo "barabasi n=1000, observer path, in T: $(scale_fit "$tmp/o.fit" T)"
[ -s "$tmp/d.fit" ] && echo "barabasi n=1000, observer path, DECOR SecLDP, in T: $(scale_fit "$tmp/d.fit" T)"
for trust in secldp pndp; do
  [ -s "$tmp/dn$trust.fit" ] &&
    echo "regular d=8, T=100, DECOR $trust, in n: $(scale_fit "$tmp/dn$trust.fit" n)"
done
if [ -n "$EGO_T" ]; then
  awk '{ s = $1 } END { printf "ego graph, T = %s: observer / structured CPU = %.2f\n", t, o / s }' \
    t="$EGO_T" o="$(cat "$tmp/ego.observer")" "$tmp/ego.structured"
fi
