#!/usr/bin/env bash
# bench/mpi.sh [BUILD]: sweeps under mpirun, on this machine:
#   1. scaling: a sweep of 40 points (D-SGD on a 60-node Erdos-Renyi graph, a
#      linear model on 20,000 synthetic records; ~0.3 s of CPU each) under
#      `mpirun -n 2` with one thread per rank, against the same sweep with -j 2
#      in one process: the ratio of wall times (goal <= 1.1), best of REPS runs;
#      then -n 3 on 2 cores with rank 0 working and as a pure dispatcher.
#   2. hand-out overhead: N trivial points (accounting only, T = 2 on the
#      Florentine graph) run by rank 1 alone (rank 0 --dispatcher), against one
#      process with one thread; the difference per point is what a hand-out
#      costs (goal < 5 ms). mpirun's start-up is measured apart and removed.
# The configurations take turns (REPS rounds, best of each), so that on a
# shared machine they see the same load. Every run's files are compared with the one-process run's (byte for byte).
# MPIRUN=... overrides the launcher, REPS=3, TRIVIAL=400. Not run by ctest.
set -euo pipefail
BUILD=${1:-build}
cpu_one=0 cpu_two=0
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN=${DPGOSSIP:-$BUILD/dpgossip}
MPIRUN=${MPIRUN:-mpirun}
REPS=${REPS:-3}
TRIVIAL=${TRIVIAL:-400}
export OMPI_MCA_btl_tcp_if_include=${OMPI_MCA_btl_tcp_if_include:-lo}
export OMPI_MCA_oob_tcp_if_include=${OMPI_MCA_oob_tcp_if_include:-lo}
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
MPI=("$MPIRUN" --oversubscribe --mca btl self,vader,tcp)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

cat > "$TMP/sweep40.ini" <<'EOF'
[topology]
generate = erdos:n=60,p=0.1,seed=2,connected=true
[protocol]
sigma = 0.1
[task]
dataset = synthetic:linear,n=20000,d=40,seed=1
epochs = 30
batches = 10
[privacy]
path = none
[output]
plots = false
[sweep]
simulation.seed = 1..40
EOF
# trivial SEEDS: points of accounting only (T = 2 on the Florentine graph)
# over the seeds SEEDS.
trivial() {
  cat <<EOF
[simulation]
rounds = 2
[topology]
generate = florentine
[protocol]
sigma = 1
[privacy]
path = none
[output]
plots = false
[sweep]
simulation.seed = $1
EOF
}
trivial "1..$TRIVIAL" > "$TMP/trivial.ini"
trivial 1 > "$TMP/one.ini"

# wall time (s) of one run of "$@" into $TMP/out (removed before); its CPU
# time (user + sys of every process, mpirun's included) goes to $TMP/cpu.
wall() {
  rm -rf "$TMP/out"
  /usr/bin/time -f "%e %U %S" -o "$TMP/time" "$@" >/dev/null
  awk '{ printf "%.3f", $2 + $3 }' "$TMP/time" > "$TMP/cpu"
  awk '{ printf "%.3f", $1 }' "$TMP/time"
}
# the CPU time of the last run, added to the sum named $1
cpu() {
  local v
  v=$(awk -v a="${!1}" -v b="$(cat "$TMP/cpu")" 'BEGIN { printf "%.3f", a + b }')
  printf -v "$1" '%s' "$v"
}
min() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (a == "" || b < a) ? b : a }'; }
same() { diff -r "$1" "$2" >/dev/null || { echo "mpi: $3 differs from one process" >&2; exit 1; }; }

# The configurations take turns, REPS rounds, best of each: on a shared
# machine they see the same load.
"$BIN" run "$TMP/sweep40.ini" -o "$TMP/ref40" -j 2 -q >/dev/null
one="" two="" three="" threed=""
for _ in $(seq "$REPS"); do
  one=$(min "$one" "$(wall "$BIN" run "$TMP/sweep40.ini" -o "$TMP/out" -j 2 -q)")
  cpu cpu_one
  same "$TMP/ref40" "$TMP/out" "-j 2"
  two=$(min "$two" "$(wall "${MPI[@]}" -n 2 "$BIN" run "$TMP/sweep40.ini" -o "$TMP/out" -j 1 -q)")
  cpu cpu_two
  same "$TMP/ref40" "$TMP/out" "mpirun -n 2"
  three=$(min "$three" "$(wall "${MPI[@]}" -n 3 "$BIN" run "$TMP/sweep40.ini" -o "$TMP/out" -j 1 -q)")
  same "$TMP/ref40" "$TMP/out" "mpirun -n 3"
  threed=$(min "$threed" "$(wall "${MPI[@]}" -n 3 "$BIN" run "$TMP/sweep40.ini" -o "$TMP/out" -j 1 -q --dispatcher)")
  same "$TMP/ref40" "$TMP/out" "mpirun -n 3 --dispatcher"
done
echo "mpi.sweep40.one_process_j2_s $one"
echo "mpi.sweep40.mpirun_n2_j1_s $two"
awk -v a="$two" -v b="$one" 'BEGIN { printf "mpi.sweep40.ratio %.3f (goal <= 1.1)\n", a / b }'
awk -v a="$cpu_two" -v b="$cpu_one" -v n="$REPS" 'BEGIN {
  printf "mpi.sweep40.cpu_s one_process %.2f mpirun_n2 %.2f (mean of %d; ratio %.3f)\n", b / n, a / n, n, a / b }'
echo "mpi.sweep40.mpirun_n3_j1_s $three (rank 0 works too)"
echo "mpi.sweep40.mpirun_n3_j1_dispatcher_s $threed (rank 0 only hands out)"

"$BIN" run "$TMP/trivial.ini" -o "$TMP/trivref" -j 1 -q >/dev/null
start1="" local1="" trivm="" trivl=""
for _ in $(seq "$REPS"); do
  start1=$(min "$start1" "$(wall "${MPI[@]}" -n 2 "$BIN" run "$TMP/one.ini" -o "$TMP/out" -j 1 -q --dispatcher)")
  local1=$(min "$local1" "$(wall "$BIN" run "$TMP/one.ini" -o "$TMP/out" -j 1 -q)")
  trivm=$(min "$trivm" "$(wall "${MPI[@]}" -n 2 "$BIN" run "$TMP/trivial.ini" -o "$TMP/out" -j 1 -q --dispatcher)")
  same "$TMP/trivref" "$TMP/out" "trivial sweep"
  trivl=$(min "$trivl" "$(wall "$BIN" run "$TMP/trivial.ini" -o "$TMP/out" -j 1 -q)")
done
echo "mpi.trivial.points $TRIVIAL"
echo "mpi.trivial.one_process_j1_s $trivl (one point: $local1)"
echo "mpi.trivial.mpirun_n2_dispatcher_s $trivm (one point: $start1)"
awk -v m="$trivm" -v m1="$start1" -v l="$trivl" -v l1="$local1" -v n="$TRIVIAL" 'BEGIN {
  pm = (m - m1) / (n - 1); pl = (l - l1) / (n - 1);
  printf "mpi.trivial.per_point_ms mpi %.3f one_process %.3f\n", pm * 1e3, pl * 1e3;
  printf "mpi.handout_overhead_ms %.3f (goal < 5)\n", (pm - pl) * 1e3 }'
