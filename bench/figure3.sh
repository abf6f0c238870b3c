#!/usr/bin/env bash
# bench/figure3.sh [BUILD]: the paper's Figure 3 grid, scenarios/figure3-housing-ego.ini
# (4 methods x 7 privacy levels x 20 seeds = 560 points of T = 320 steps on the
# 148-node Facebook ego graph; nonprivate ignores mu, so its 140 points are 20 runs),
# timed end to end on all cores, then the paper's two measures from its groups.csv:
#   - Mafalda's average improvement in test loss over the last 50 steps at a fixed
#     epsilon (every private method is calibrated to the same mu, hence the same
#     epsilon, at each level), against DP-D-SGD and against the best other private one;
#   - the reduction in epsilon at a fixed final test loss (0.75 as in the paper; LOSS=x
#     to change), epsilon interpolated in log scale along each method's curve.
# SEEDS=1..2 runs a subset (and says so); OUT=DIR keeps the results (default
# BUILD/bench/figure3). DPGOSSIP=path overrides the binary; LAUNCH="mpirun -n 2"
# runs it under MPI (then THREADS=1 for one thread per rank). SCENARIO=NAME runs
# scenarios/NAME.ini instead (figure3-housing-florentine: the appendix's graph);
# STANDARDIZE=all standardizes the features with the statistics of the whole
# dataset before the split, as the paper's code does (default: train split only);
# MODEL=SPEC replaces the model (mlp:hidden=64,init=fanin: the paper's initial
# model). MEASURES_ONLY=1 only recomputes the measures from an existing OUT.
# Not run by ctest.
set -euo pipefail
BUILD=${1:-build}
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN=${DPGOSSIP:-$BUILD/dpgossip}
OUT=${OUT:-$BUILD/bench/figure3}
LOSSES=${LOSSES:-0.75 1 1.5 2}
SCENARIO=${SCENARIO:-figure3-housing-ego}
args=(-q)
if [ -n "${SEEDS:-}" ]; then args+=(--set "sweep.simulation.seed=$SEEDS"); fi
if [ -n "${STANDARDIZE:-}" ]; then
  args+=(--set "task.dataset=california:$ROOT/data/california/cal_housing.data,standardize=$STANDARDIZE")
fi
if [ -n "${THREADS:-}" ]; then args+=(-j "$THREADS"); fi
if [ -n "${MODEL:-}" ]; then args+=(--set "task.model=$MODEL"); fi
if [ -z "${MEASURES_ONLY:-}" ]; then
  rm -rf "$OUT"
  start=$(date +%s.%N)
  # shellcheck disable=SC2086 # LAUNCH is a command line
  ${LAUNCH:-} "$BIN" run "$ROOT/scenarios/$SCENARIO.ini" --out "$OUT" "${args[@]}" >/dev/null
  end=$(date +%s.%N)
fi
points=$(($(wc -l < "$OUT/points.csv") - 1))
echo "figure3.scenario $SCENARIO${STANDARDIZE:+ (standardize=$STANDARDIZE)}${MODEL:+ (model $MODEL)}"
echo "figure3.points $points${SEEDS:+ (subset: seeds $SEEDS)}"
echo "figure3.cores $(nproc)${LAUNCH:+ (under: $LAUNCH)}"
if [ -z "${MEASURES_ONLY:-}" ]; then
  awk -v s="$start" -v e="$end" 'BEGIN { printf "figure3.wall_s %.1f\n", e - s }'
fi
# groups.csv's columns by name: the method, mu, the first epsilon_* column (the only
# accounting, LDP) and the arithmetic means over seeds of the final and last-50-steps
# test loss (the paper averages the loss itself; the geometric means next to them are
# what the figures draw).
awk -F, -v LS="$LOSSES" '
NR == 1 { for (i = 1; i <= NF; i++) {
            if ($i == "name") cn = i; if ($i == "mu") cm = i
            if ($i ~ /^epsilon/ && !ce) ce = i
            if ($i == "final_test_loss_mean") cf = i; if ($i == "test_loss_last50_mean") ct = i }
          if (!cn || !cm || !ce || !cf || !ct) { print "figure3.sh: groups.csv lacks a column" > "/dev/stderr"; bad = 1; exit 1 }
          next }
{ name = $cn; mu = $cm; eps[name, mu] = $ce; fin[name, mu] = $cf; tail[name, mu] = $ct;
  if (!(mu in seen)) { seen[mu] = 1; mus[++nm] = mu } }
function crossing(m, L,    i, j, n, xs, ys, t, x0, x1, y0, y1) {
  # epsilon at which method m first reaches final loss <= L (log-linear interpolation)
  n = 0
  for (i = 1; i <= nm; i++) { xs[++n] = eps[m, mus[i]]; ys[n] = fin[m, mus[i]] }
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (xs[j] + 0 < xs[i] + 0) {
    t = xs[i]; xs[i] = xs[j]; xs[j] = t; t = ys[i]; ys[i] = ys[j]; ys[j] = t }
  if (ys[1] + 0 <= L) return xs[1]
  for (i = 2; i <= n; i++) if (ys[i] + 0 <= L) {
    x0 = log(xs[i-1]); x1 = log(xs[i]); y0 = ys[i-1]; y1 = ys[i]
    return exp(x0 + (x1 - x0) * (y0 - L) / (y0 - y1)) }
  return -1
}
END {
  if (bad) exit 1
  sd = 0; sb = 0; k = 0
  for (i = 1; i <= nm; i++) {
    mu = mus[i]; m = tail["mafalda", mu]; d = tail["dsgd", mu]; a = tail["antipgd", mu]
    best = (a + 0 < d + 0) ? a : d
    printf "figure3.mu_%s.epsilon %.4g  last50_test_loss: nonprivate %.4g dsgd %.4g antipgd %.4g mafalda %.4g\n", mu, eps["mafalda", mu], tail["nonprivate", mu], d, a, m
    sd += 1 - m / d; sb += 1 - m / best; k++
  }
  printf "figure3.mafalda_last50_improvement_vs_dsgd_pct %.1f\n", 100 * sd / k
  printf "figure3.mafalda_last50_improvement_vs_best_private_pct %.1f\n", 100 * sb / k
  nl = split(LS, losses, " ")
  for (q = 1; q <= nl; q++) {
    L = losses[q]
    em = crossing("mafalda", L); ed = crossing("dsgd", L); ea = crossing("antipgd", L)
    printf "figure3.epsilon_at_final_loss_%s: mafalda %s dsgd %s antipgd %s\n", L, em < 0 ? "never" : sprintf("%.4g", em), ed < 0 ? "never" : sprintf("%.4g", ed), ea < 0 ? "never" : sprintf("%.4g", ea)
    if (em > 0 && ed > 0) printf "figure3.epsilon_reduction_vs_dsgd_at_loss_%s_x %.2f\n", L, ed / em
    else printf "figure3.epsilon_reduction_vs_dsgd_at_loss_%s_x n/a (not reached on the grid)\n", L
  }
}' "$OUT/groups.csv"
echo "figure3.figures $OUT/loss.svg $OUT/loss_vs_epsilon.svg"
