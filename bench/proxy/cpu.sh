#!/usr/bin/env bash
# What each proxy costs the machine per request, side by side in one run:
# nginx as a plain reverse proxy and weld proxy (untagged, then tagged, then
# both untagged with the Anthropic Messages shape of post_anthropic.lua), each
# in front of the same fixed-response upstream, driven by wrk at CONNS
# connections. Per request, from the processes' own kernel counters (all
# threads/worker processes summed, read before and after each wrk run):
#   user / sys   CPU time (/proc/<task>/stat utime, stime)
#   rq-wait      time runnable but waiting for a CPU (/proc/<task>/schedstat)
#   switches     voluntary + involuntary context switches (/proc/<task>/status)
# and wrk's p50 / p99 / req/s. Cells alternate, REPEAT times, so the machine's
# load touches every path alike; read the figures side by side, not alone.
# Usage: bench/proxy/cpu.sh [path/to/weld]   (a Release build)
#        WELD_B=path/to/other/weld bench/proxy/cpu.sh path/to/weld: a second
#        build beside the first (its untagged, tagged and Anthropic cells,
#        weld-b-*), e.g. a change against main, in the same run.
# Env: CONNS (default 50), DURATION (s per wrk run, default 4), REPEAT (3),
#      THREADS (weld threads = nginx workers, default 2), HISTORY (earlier
#      turns of 500 characters in each request, default 0: see post.lua),
#      NGX_LOCATION (directives added to nginx's location, e.g.
#      'client_body_buffer_size 1m;': by default nginx writes a request body
#      over 16 KiB to a temporary file).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
WELD=${1:-$here/../../build-rel/src/cli/weld}
CONNS=${CONNS:-50}
DURATION=${DURATION:-4}
REPEAT=${REPEAT:-3}
THREADS=${THREADS:-2}
UP=18121; NGX=18122; WP=18123; WPB=18124
work=$(mktemp -d /tmp/weld-bench-cpu.XXXXXX)
mkdir -p "$work/logs"
# shellcheck source=nginx_pair.sh
source "$here/nginx_pair.sh"
start_nginx_pair "$work" $UP $NGX "$THREADS" "${NGX_LOCATION:-}"
"$WELD" proxy --listen 127.0.0.1:$WP --upstream http://127.0.0.1:$UP --threads "$THREADS" --no-access-log \
  2> "$work/logs/weld.log" & weld=$!; pids+=($weld)
if [ -n "${WELD_B:-}" ]; then
  "$WELD_B" proxy --listen 127.0.0.1:$WPB --upstream http://127.0.0.1:$UP --threads "$THREADS" --no-access-log \
    2> "$work/logs/weld-b.log" & weld_b=$!; pids+=($weld_b)
fi
sleep 1
nginx_workers=$(pgrep -P "$NGINX_PROXY_PID" | tr '\n' ' ')
tck=$(getconf CLK_TCK)

# Sums over the tasks of the given processes: utime stime (ticks),
# run-queue wait (ns), context switches.
counters() {
  local p t
  for p in "$@"; do
    for t in /proc/"$p"/task/*; do
      [ -r "$t/stat" ] || continue
      awk '{ sub(/^.*\) /, ""); print $12, $13 }' "$t/stat"
      awk '{ print $2 }' "$t/schedstat"
      awk '/^(non)?voluntary_ctxt_switches/ { s += $2 } END { print s }' "$t/status"
    done | paste - - - | tr '\t' ' '
  done | awk '{ u += $1; s += $2; w += $3; c += $4 } END { printf "%.0f %.0f %.0f %.0f\n", u, s, w, c }'
}

cell() {  # name port model pids...   (SCRIPT=, URL_PATH=: another request shape)
  local name=$1 port=$2 model=$3; shift 3
  local before after out
  before=$(counters "$@")
  out=$(BENCH_MODEL=$model wrk -t2 -c"$CONNS" -d"${DURATION}s" --latency -s "$here/${SCRIPT:-post.lua}" \
    "http://127.0.0.1:$port${URL_PATH:-/v1/chat/completions}")
  after=$(counters "$@")
  awk -v name="$name" -v b="$before" -v a="$after" -v tck="$tck" -v out="$out" '
    function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
    BEGIN {
      n = split(out, lines, "\n")
      for (i = 1; i <= n; i++) {
        split(lines[i], f, " ")
        if (lines[i] ~ /^ +50%/) p50 = ms(f[2])
        if (lines[i] ~ /^ +99%/) p99 = ms(f[2])
        if (lines[i] ~ /requests in/) requests = f[1]
        if (lines[i] ~ /^Requests\/sec/) rps = f[2]
      }
      split(b, x, " "); split(a, y, " ")
      us = 1e6 / tck / requests
      printf "%-16s %7.3f %7.3f %8.0f %8.1f %8.1f %8.1f %9.3f\n", name, p50, p99, rps,
        (y[1] - x[1]) * us, (y[2] - x[2]) * us, (y[3] - x[3]) / 1000 / requests, (y[4] - x[4]) / requests
    }'
}

echo "CONNS=$CONNS THREADS=$THREADS DURATION=${DURATION}s REPEAT=$REPEAT HISTORY=${HISTORY:-0} NGX_LOCATION='${NGX_LOCATION:-}'; per request: CPU user/sys us, run-queue wait us, context switches"
printf "%-16s %7s %7s %8s %8s %8s %8s %9s\n" path p50_ms p99_ms req/s user_us sys_us rqwait_us switches
for rep in $(seq 1 "$REPEAT"); do
  # shellcheck disable=SC2086
  cell nginx $NGX bench $nginx_workers
  cell weld-untagged $WP bench $weld
  if [ -n "${WELD_B:-}" ]; then cell weld-b-untagged $WPB bench "$weld_b"; fi
  cell weld-tagged $WP bench__schema=router $weld
  if [ -n "${WELD_B:-}" ]; then cell weld-b-tagged $WPB bench__schema=router "$weld_b"; fi
  # The untagged Anthropic Messages shape (post_anthropic.lua, canned_anthropic.json).
  # shellcheck disable=SC2086
  SCRIPT=post_anthropic.lua URL_PATH=/v1/messages cell nginx-anthropic $NGX bench $nginx_workers
  SCRIPT=post_anthropic.lua URL_PATH=/v1/messages cell weld-anthropic $WP bench $weld
  if [ -n "${WELD_B:-}" ]; then
    SCRIPT=post_anthropic.lua URL_PATH=/v1/messages cell weld-b-anthropic $WPB bench "$weld_b"
  fi
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
