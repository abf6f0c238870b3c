#!/bin/bash
# scripts/test-kernels.sh [BUILD]: the numerical tests (ctest label
# `numerical`) once under each OpenBLAS kernel this CPU can execute, forced
# with OPENBLAS_CORETYPE; `make test-kernels` calls it. It is how a numerical
# change shows that its tolerances hold beyond the machine's own kernel
# (issue #38); `make test` runs each test once under the machine's kernel.
#
# A kernel is run only when /proc/cpuinfo lists every instruction set its
# code was compiled for (forcing one the CPU lacks dies of SIGILL); the others
# are skipped with the missing flags named. Where OPENBLAS_CORETYPE is already
# set (machines whose OpenBLAS picks a kernel that is wrong for them are
# configured that way), only that kernel runs and the script says so.
# Prints a summary (kernel, result, seconds) and exits 1 if any kernel failed.
# Extra ctest arguments: CTEST_ARGS (default "-j2 --output-on-failure").
set -u
BUILD=${1:-build}
CTEST_ARGS=${CTEST_ARGS:--j2 --output-on-failure}

if [ ! -f "$BUILD/CTestTestfile.cmake" ]; then
  echo "test-kernels: $BUILD is not a configured build tree (run 'make build' first)" >&2
  exit 2
fi

. "$(dirname "$0")/kernels-common.sh"

if [ -n "${OPENBLAS_CORETYPE:-}" ]; then
  echo "test-kernels: OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE is set in the environment:" \
    "running only under it (unset it to run every kernel this CPU can execute)"
  KERNELS=$OPENBLAS_CORETYPE
  forced=1
else
  forced=0
  if [ "$flags" = "  " ]; then
    echo "test-kernels: /proc/cpuinfo has no flags line (not Linux on x86-64?): running only" \
      "under the default kernel"
    KERNELS=default
  fi
fi

summary=""
failed=0
for k in $KERNELS; do
  if [ "$k" != default ] && [ $forced = 0 ]; then
    miss=$(missing "$k")
    if [ -n "$miss" ]; then
      line=$(printf '%-12s skipped: this CPU lacks %s' "$k" "$miss")
      echo "test-kernels: $line"
      summary="$summary$line"$'\n'
      continue
    fi
  fi
  echo "test-kernels: ctest -L numerical under OPENBLAS_CORETYPE=$k"
  start=$(date +%s.%N)
  if [ "$k" = default ]; then
    (cd "$BUILD" && ctest -L numerical $CTEST_ARGS)
  else
    (cd "$BUILD" && OPENBLAS_CORETYPE=$k ctest -L numerical $CTEST_ARGS)
  fi
  rc=$?
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
  if [ $rc = 0 ]; then res=passed; else res="FAILED (ctest exit $rc)" failed=1; fi
  line=$(printf '%-12s %-24s %7.1f s' "$k" "$res" "$secs")
  summary="$summary$line"$'\n'
done

echo
echo "test-kernels summary (ctest -L numerical; OpenBLAS kernel forced with OPENBLAS_CORETYPE):"
printf '%s' "$summary"
exit $failed
