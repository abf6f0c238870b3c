# bench/scale_common.sh: what the scaling scripts (account_scale.sh,
# figure2_scale.sh) share; sourced, never run. Needs BIN and tmp set.

# scale_require NAME: exits with a message naming the script NAME unless
# /usr/bin/time and the dpgossip binary $BIN are there.
scale_require() {
  if [ ! -x /usr/bin/time ]; then
    echo "$1: /usr/bin/time is needed (Debian package 'time')" >&2
    exit 1
  fi
  if [ ! -x "$BIN" ]; then
    echo "$1: $BIN not found: build first (make build)" >&2
    exit 1
  fi
}

# scale_cost NAME: "cpu_seconds rss_mb" of the run /usr/bin/time measured
# into $tmp/NAME.time (-f "%U %S %M").
scale_cost() {
  awk '{ printf "%.1f %.0f\n", $1 + $2, $3 / 1024 }' "$tmp/$1.time"
}

# scale_fit FILE VAR: the least-squares slopes of log(column 2) and
# log(column 3) against log(column 1), as "time ~ VAR^a, peak RSS ~ VAR^b".
scale_fit() {
  awk '{ x = log($1); for (c = 2; c <= 3; c++) { y = log($c); sx[c] += x; sy[c] += y;
           sxx[c] += x * x; sxy[c] += x * y } ; k++ }
       END { for (c = 2; c <= 3; c++) {
               d = k * sxx[c] - sx[c] * sx[c];
               s[c] = d > 0 ? (k * sxy[c] - sx[c] * sy[c]) / d : 0 }
             printf "time ~ %s^%.2f, peak RSS ~ %s^%.2f\n", var, s[2], var, s[3] }' var="$2" "$1"
}
