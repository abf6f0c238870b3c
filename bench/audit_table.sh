#!/usr/bin/env bash
# bench/audit_table.sh [BUILD]: the coverage table of docs/audits.md: every
# protocol and noise strategy (D-SGD, Muffliato, AntiPGD, MF-D-SGD with a dense
# C, banded Mafalda, Toeplitz, BLT, DECOR, Zip-DL), under LDP, PNDP and SecLDP
# (where the protocol has it), attacker 0 and the collusion set 0+5, synchronous
# and deadline mode (deadline:ms=5 behind constant 10 ms links), on Florentine
# at T (default 10), victims 1 (a neighbour of 0) and 8 (three hops away),
# TRIALS (default 2000; BLT: TRIALS_BLT, default 400: its fit runs at every
# run's set-up) per world, every attack that applies. Then the reconstruction
# of every victim at sigma = 0 (each protocol, LDP and PNDP, attacker 0; partial:
# some steps never reach the attacker, the error is over the others).
# Each case's JSON is kept in OUT (default BUILD/bench/audit-table) and reused
# when present. Prints the Markdown tables on stdout. Not run by ctest.
set -euo pipefail
BUILD=${1:-build}
BIN=${DPGOSSIP:-$BUILD/dpgossip}
OUT=${OUT:-$BUILD/bench/audit-table}
T=${T:-10}
TRIALS=${TRIALS:-2000}
TRIALS_BLT=${TRIALS_BLT:-400}
THREADS=${THREADS:-2}
mkdir -p "$OUT"
PROTOCOLS="dsgd muffliato:K=2 antipgd mfdsgd:C=sr mafalda:band=2 mfdsgd:C=toeplitz,band=2 mfdsgd:C=blt,buffers=2 decor zipdl"

case_json() { # case_json FILE ARGS...: one audit, its JSON written only when complete
  local file=$1
  shift
  if [ -s "$file" ]; then return; fi
  echo "audit_table: $*" >&2
  # exit 1 (an overstated guarantee) still prints the rows
  "$BIN" audit --generate florentine -T "$T" -q --format json -j "$THREADS" "$@" >"$file.part" ||
    [ $? -eq 1 ]
  mv "$file.part" "$file"
}

rows() { # rows FILE PROTOCOL TRUST SET MODE: the table rows of one case
  jq -r --arg p "$2" --arg tr "$3" --arg s "$4" --arg m "$5" '
    def f: if . == null then "inf" else (. * 1000 | round / 1000 | tostring) end;
    .victims[] | "| \($p) | \($tr) | \($s) | \($m) | \(.victim) | \(.attack) | \(.mu | f) | " +
      (if .attack == "reconstruction" then "error \(.reconstruction_error) | | "
       else "\(.mu_empirical | f) [\(.mu_empirical_low | f), \(.mu_empirical_high | f)] | " +
         (if .mu > 0 then (.mu_empirical / .mu * 100 | round | tostring) + "%" else "" end) + " | "
       end) + "\(.status) |"' "$1"
}

echo "| protocol | trust | attackers | mode | victim | attack | mu accounted | mu empirical [95%] | ratio | status |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for p in $PROTOCOLS; do
  trusts="ldp pndp"
  case $p in dsgd | decor | zipdl) trusts="ldp pndp secldp" ;; esac
  n=$TRIALS
  case $p in *blt*) n=$TRIALS_BLT ;; esac
  for tr in $trusts; do
    for s in 0 0+5; do
      for m in sync deadline; do
        mode=()
        [ "$m" = deadline ] && mode=(--mode deadline:ms=5 --latency constant:ms=10)
        f="$OUT/$(echo "$p-$tr-$s-$m" | tr ':=,+' '____').json"
        case_json "$f" -p "$p" --trust "$tr" -a "$s" --victim 1 --victim 8 --trials "$n" \
          --seed 1 "${mode[@]}"
        rows "$f" "$p" "$tr" "$s" "$m"
      done
    done
  done
done

echo
echo "| protocol | trust | victims unprotected at sigma = 0 (attacker 0) | exposed | partial | exact (error < 1e-8) | largest error |"
echo "|---|---|---|---|---|---|---|"
for p in $PROTOCOLS; do
  case $p in *blt*) continue ;; esac # the BLT fit needs noise
  for tr in ldp pndp; do
    f="$OUT/$(echo "recon-$p-$tr" | tr ':=,+' '____').json"
    case_json "$f" -p "$p" --trust "$tr" -a 0 --victim all --sigma 0 --attack reconstruction
    jq -r --arg p "$p" --arg tr "$tr" '
      [.victims[] | select(.status == "exposed" or .status == "partial")] as $e |
      "| \($p) | \($tr) | \($e | length) | " +
      "\($e | map(select(.status == "exposed")) | length) | " +
      "\($e | map(select(.status == "partial")) | length) | " +
      "\($e | map(select(.reconstruction_error != null and .reconstruction_error < 1e-8)) | length) | " +
      "\($e | map(.reconstruction_error // 0) | max // 0) |"' "$f"
  done
done
