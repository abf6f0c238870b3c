#!/bin/bash
# scripts/kernels-repro.sh [BUILD]: how far the printed privacy numbers move
# across OpenBLAS kernels (issue #38, item 3). Runs a cheap selection of the
# shipped scenarios' accountings and the README / docs/guide.md tour's
# accounting commands (CSV output) under the environment's kernel, then
# under each other kernel this CPU can execute (OPENBLAS_CORETYPE, chosen as
# scripts/test-kernels.sh does), and prints per command the largest relative
# difference of mu and of epsilon from the reference kernel's, the number of
# victims beyond 1e-9, and every status change (protected, unprotected,
# unresolved). Exits 1 if any status changed. Its figures are in
# docs/performance.md ("Reproducibility across BLAS kernels").
# Output files go to a temporary folder, removed at the end.
set -u
BUILD=${1:-build}
BIN=$BUILD/dpgossip
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -x "$BIN" ]; then
  echo "kernels-repro: no $BIN (run 'make build' first)" >&2
  exit 2
fi
BIN=$(cd "$(dirname "$BIN")" && pwd)/dpgossip
. "$ROOT/scripts/kernels-common.sh"
# The reference: the kernel the environment gives (OPENBLAS_CORETYPE where
# the machine sets it, else OpenBLAS's own choice).
ORIG=${OPENBLAS_CORETYPE:-}
if [ -n "$ORIG" ]; then
  echo "kernels-repro: reference: OPENBLAS_CORETYPE=$ORIG, as the environment sets it"
else
  echo "kernels-repro: reference: the kernel OpenBLAS picks for this CPU"
fi
export DPGOSSIP_BLAS_NOTE=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FLO=$ROOT/data/graphs/florentine.edges
EGO=$ROOT/data/graphs/facebook-ego-414-lcc.edges

# name|kind|arguments: kind "account" runs `dpgossip account ARGS --format csv
# -q`, kind "run" runs `dpgossip run ARGS -q -o DIR` and reads DIR/privacy.csv.
COMMANDS=(
  "readme-tour|account|--generate florentine --rounds 10 --trust pndp --attackers 0 --compare muffliato"
  "guide-decor-exact|account|--generate florentine --rounds 8 --protocol decor --trust ldp,pndp,secldp --attackers 0 --attackers 3+11 --sensitivity exact"
  "guide-deadline|account|--generate florentine --rounds 8 --trust pndp --attackers 0 --mode deadline:ms=5 --latency constant:ms=1 --link 8:1=constant:ms=1000"
  "guide-zipdl-uniform|account|--graph $FLO -T 40 -b 4 --protocol zipdl --trust ldp -a 9 --path observer --seed 2"
  "guide-zipdl-metropolis|account|--graph $FLO -T 40 -b 4 --protocol zipdl --trust ldp -a 9 --path observer --seed 2 --gossip metropolis"
  "zipdl-ldp-ego-T40|account|--graph $EGO --lcc -T 40 --protocol zipdl --trust ldp -a 0 --path observer"
  "mafalda-blt-florentine|account|--generate florentine -T 32 --protocol mafalda:C=blt --trust pndp -a 0"
  "dsgd-pndp-ego-T320|account|--graph $EGO --lcc -T 320 --trust pndp -a 0"
  "scenario-figure2-florentine|run|$ROOT/scenarios/figure2-florentine.ini"
  "scenario-figure2-ego|run|$ROOT/scenarios/figure2-ego.ini"
  "scenario-collusion|run|$ROOT/scenarios/collusion.ini"
)

# run_one KERNEL NAME KIND ARGS: the CSV into $TMP/KERNEL/NAME.csv; its
# seconds on stdout.
run_one() {
  local k=$1 name=$2 kind=$3 args=$4 out=$TMP/$1/$2 start rc
  mkdir -p "$TMP/$k"
  start=$(date +%s.%N)
  if [ "$k" != default ]; then
    export OPENBLAS_CORETYPE=$k
  elif [ -n "$ORIG" ]; then
    export OPENBLAS_CORETYPE=$ORIG
  else
    unset OPENBLAS_CORETYPE
  fi
  # shellcheck disable=SC2086 # ARGS are words
  if [ "$kind" = account ]; then
    "$BIN" account $args --format csv -q >"$out.csv" 2>"$out.err"
    rc=$?
  else
    "$BIN" run $args -q -o "$out.dir" >/dev/null 2>"$out.err" && cp "$out.dir/privacy.csv" "$out.csv"
    rc=$?
  fi
  if [ -n "$ORIG" ]; then export OPENBLAS_CORETYPE=$ORIG; else unset OPENBLAS_CORETYPE; fi
  if [ $rc != 0 ]; then
    echo "kernels-repro: $name under $k failed (exit $rc):" >&2
    cat "$out.err" >&2
    return 1
  fi
  awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}

# compare NAME KERNEL: one line: max rel diff of mu and epsilon, victims
# beyond 1e-9, status changes (python3: CSV rows matched by their key).
compare() {
  python3 - "$TMP/default/$1.csv" "$TMP/$2/$1.csv" <<'EOF'
import csv, math, sys
def rows(p):
    with open(p) as f:
        r = list(csv.DictReader(f))
    key = [c for c in ("collusion", "trust", "attackers", "path", "victim", "seed", "point")
           if r and c in r[0]]
    return {tuple(x[c] for c in key): x for x in r}
a, b = rows(sys.argv[1]), rows(sys.argv[2])
if a.keys() != b.keys():
    print("ROWS DIFFER (%d vs %d)" % (len(a), len(b)))
    sys.exit(0)
def f(s):
    return math.inf if s in ("inf", "") else float(s)
worst = {"mu": 0.0, "epsilon": 0.0}
beyond, flips, n = 0, [], 0
for k, x in a.items():
    y = b[k]
    n += 1
    if x.get("status") != y.get("status"):
        flips.append("%s: %s -> %s" % ("/".join(k), x.get("status"), y.get("status")))
    for c in worst:
        if c not in x or x[c] == "" and y[c] == "":
            continue
        u, v = f(x[c]), f(y[c])
        if math.isinf(u) or math.isinf(v):
            d = 0.0 if u == v else math.inf
        else:
            d = abs(u - v) / max(abs(u), abs(v)) if u != v else 0.0
        worst[c] = max(worst[c], d)
        if c == "mu" and d > 1e-9:
            beyond += 1
print("%d victims, mu %.1e, eps %.1e, %d beyond 1e-9, %s" % (
    n, worst["mu"], worst["epsilon"], beyond,
    "status changes: " + "; ".join(flips) if flips else "no status change"))
sys.exit(3 if flips else 0)
EOF
}

runnable=""
for k in $KERNELS; do
  miss=$(missing "$k")
  if [ -n "$miss" ]; then
    echo "kernels-repro: $k skipped: this CPU lacks $miss"
  else
    runnable="$runnable $k"
  fi
done
echo "kernels-repro: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load$(cut -d' ' -f1-3 /proc/loadavg | sed 's/^/ /'); kernels:$runnable"

status=0
for c in "${COMMANDS[@]}"; do
  IFS='|' read -r name kind args <<<"$c"
  secs=$(run_one default "$name" "$kind" "$args") || { status=1; continue; }
  echo "== $name ($kind, reference kernel $secs s)"
  for k in $runnable; do
    secs=$(run_one "$k" "$name" "$kind" "$args") || { status=1; continue; }
    line=$(compare "$name" "$k")
    [ $? = 3 ] && status=1
    printf '   %-12s %6s s  %s\n' "$k" "$secs" "$line"
  done
done
echo "kernels-repro: load at the end$(cut -d' ' -f1-3 /proc/loadavg | sed 's/^/ /')"
exit $status
