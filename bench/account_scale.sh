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
# Deadline mode: `account --generate regular:n=ASYNC_N,d=8,seed=1 -T 100 --trust
# pndp -a 0 -p dsgd --mode deadline:ms=100 --latency lognormal:mu=3,sigma=0.5
# --loss 0.05` (ASYNC_N default 10000; empty skips it).
# Stale mode: `account --generate regular:n=STALE_N,d=8,seed=1 -T 100 --trust
# pndp -a 0 --mode stale:s=2 --latency lognormal:mu=3,sigma=0.5` (STALE_N
# default 10000; empty skips it), and the same with `-p mfdsgd:C=bsr,band=4`
# at n = STALE_MF_N (default 1000: the noise's state beside the slots needs
# about 600 n^2 bytes, 60 GB at n = 10^4; empty skips it).
# Correlated noise (the W-power engine with C_local; PNDP, attacker 0, all
# victims) on regular:n=N,d=8,seed=1:
#   in n  `-p mfdsgd:C=bsr,band=4` at T = 100 for N in MF_NS (default 1000
#         2000 5000 10000), and in T at N = 10000 for T in MF_TS (default
#         25 50 100);
#   C     at N = 10000, T = 100: `-p mfdsgd:C=sr` (a dense lower-triangular
#         Toeplitz C, as a BLT's) and Mafalda's band-4 C optimized on
#         regular:n=1000,d=8,seed=1 (`dpgossip mafalda`, written as CSV and
#         given as `-p mfdsgd:C=FILE`: the strategy fits' own O(n^3) spectral
#         work at n = 10^4 is not the accountant's), when MF_C is set (default
#         1).
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
# Deadline mode with log-normal latency and 5% loss: the structured path on
# the run's delivery record (one provenance-free simulation, then Kalman).
ASYNC_N=${ASYNC_N-10000}
if [ -n "$ASYNC_N" ]; then
  read -r cpu rss < <(measure "async" --generate "regular:n=$ASYNC_N,d=8,seed=1" -T 100 \
    --trust pndp -a 0 -p dsgd --mode deadline:ms=100 --latency lognormal:mu=3,sigma=0.5 \
    --loss 0.05)
  echo "| regular n=$ASYNC_N d=8, deadline:ms=100, lognormal:mu=3,sigma=0.5, loss 0.05 | 100 | $cpu | $rss |"
fi
# Stale mode (bounded staleness 2) with log-normal latency: late messages
# enter later rounds, held in the slots of a delay-augmented state.
STALE_N=${STALE_N-10000}
if [ -n "$STALE_N" ]; then
  read -r cpu rss < <(measure "stale" --generate "regular:n=$STALE_N,d=8,seed=1" -T 100 \
    --trust pndp -a 0 --mode stale:s=2 --latency lognormal:mu=3,sigma=0.5)
  echo "| regular n=$STALE_N d=8, stale:s=2, lognormal:mu=3,sigma=0.5 | 100 | $cpu | $rss |"
fi
STALE_MF_N=${STALE_MF_N-1000}
if [ -n "$STALE_MF_N" ]; then
  read -r cpu rss < <(measure "stale-mf" --generate "regular:n=$STALE_MF_N,d=8,seed=1" -T 100 \
    --trust pndp -a 0 -p mfdsgd:C=bsr,band=4 --mode stale:s=2 \
    --latency lognormal:mu=3,sigma=0.5)
  echo "| regular n=$STALE_MF_N d=8, mfdsgd:C=bsr,band=4, stale:s=2, lognormal:mu=3,sigma=0.5 | 100 | $cpu | $rss |"
fi
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
MF_NS=${MF_NS-1000 2000 5000 10000}
MF_TS=${MF_TS-25 50 100}
MF_C=${MF_C-1}
: >"$tmp/mn.fit"
for n in $MF_NS; do
  read -r cpu rss < <(measure "mn$n" --generate "regular:n=$n,d=8,seed=1" -T 100 --trust pndp \
    -a 0 -p mfdsgd:C=bsr,band=4)
  echo "| regular n=$n d=8, mfdsgd:C=bsr,band=4 | 100 | $cpu | $rss |"
  echo "$n $cpu $rss" >>"$tmp/mn.fit"
done
: >"$tmp/mt.fit"
for t in $MF_TS; do
  read -r cpu rss < <(measure "mt$t" --generate "regular:n=10000,d=8,seed=1" -T "$t" \
    --trust pndp -a 0 -p mfdsgd:C=bsr,band=4)
  echo "| regular n=10000 d=8, mfdsgd:C=bsr,band=4 | $t | $cpu | $rss |"
  echo "$t $cpu $rss" >>"$tmp/mt.fit"
done
if [ -n "$MF_C" ]; then
  read -r cpu rss < <(measure "msr" --generate "regular:n=10000,d=8,seed=1" -T 100 \
    --trust pndp -a 0 -p mfdsgd:C=sr)
  echo "| regular n=10000 d=8, mfdsgd:C=sr | 100 | $cpu | $rss |"
  "$BIN" mafalda --generate "regular:n=1000,d=8,seed=1" -T 100 -b 1 --band 4 \
    --baselines none --blt-buffers 0 -q -o "$tmp/mafalda.csv" >/dev/null
  read -r cpu rss < <(measure "mmaf" --generate "regular:n=10000,d=8,seed=1" -T 100 \
    --trust pndp -a 0 -p "mfdsgd:C=$tmp/mafalda.csv")
  echo "| regular n=10000 d=8, mfdsgd:C=(Mafalda band 4, CSV) | 100 | $cpu | $rss |"
fi
echo
[ -s "$tmp/mn.fit" ] && echo "mfdsgd bsr band 4, T=100, in n: $(scale_fit "$tmp/mn.fit" n)"
[ -s "$tmp/mt.fit" ] && echo "mfdsgd bsr band 4, n=10000, in T: $(scale_fit "$tmp/mt.fit" T)"
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
