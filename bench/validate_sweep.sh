#!/usr/bin/env bash
# `dpgossip validate` of a sweep of N points (default 10^5 and 10^6): a
# linear D-SGD task on Florentine swept over N values of protocol.mu, which
# run's checks do not read (so the points share one check and the figure is
# validate's own pass over the points). Prints /usr/bin/time -v's wall time,
# CPU time and peak memory. Usage: bash bench/validate_sweep.sh [BUILD] [N...]
set -euo pipefail
BUILD=${1:-build}
shift || true
NS=("$@")
[ ${#NS[@]} -gt 0 ] || NS=(100000 1000000)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for n in "${NS[@]}"; do
  ini="$dir/mu$n.ini"
  {
    printf '[topology]\ngenerate = florentine\ngossip = uniform\n'
    printf '[protocol]\nname = dsgd\nmu = 0.3\nclip = 1\nlr = 0.1\n'
    printf '[task]\ndataset = synthetic:linear,n=3000,d=10,noise=0.1,seed=1\nmodel = linear\n'
    printf 'epochs = 10\nbatches = 16\n'
    printf '[privacy]\ntrust = ldp;pndp\ndelta = 1e-6\n[collusion.attacker]\nnodes = 0\n'
    printf '[output]\ndir = %s/out\n[sweep]\nprotocol.mu = ' "$dir"
    awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "%s%.7g", (i ? ";" : ""), 0.1 + i * 1e-6; print "" }'
  } > "$ini"
  echo "== $n points ($(uptime | sed 's/.*load/load/'))"
  /usr/bin/time -v "$BUILD/dpgossip" validate "$ini" 2>&1 |
    grep -E "valid|problem|Elapsed|User time|System time|Maximum resident"
done
