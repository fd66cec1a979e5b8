#!/usr/bin/env bash
# System calls per request, by kind, weld proxy against nginx in one run:
# nginx as the LLM proxy (nginx_pair.sh) and weld proxy (untagged; tagged;
# the untagged Anthropic Messages shape), each in front of the same
# fixed-response upstream, driven by wrk at CONNS connections. The counts
# come from the kernel's syscall tracepoints (`perf stat -e
# syscalls:sys_enter_*` on the proxy's processes only, all threads or
# worker processes), divided by the requests wrk completed. Unlike CPU
# times they hardly move with the machine's load (except epoll_wait, which
# returns more often when a proxy is starved less), so they show where a
# proxy's kernel time per request goes.
# Usage: bench/proxy/syscalls.sh [path/to/weld]    (run as root, or with
#        kernel.perf_event_paranoid <= -1, for the tracepoints)
# Env: CONNS (default 500), DURATION (s per wrk run, default 4), THREADS
#      (weld threads = nginx workers, default 2), MIN (a kind is shown when
#      either proxy makes at least MIN per request, default 0.01), PORT (the
#      three ports PORT..PORT+2, default 18171).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
WELD=${1:-$here/../../build-rel/src/cli/weld}
CONNS=${CONNS:-500}
DURATION=${DURATION:-4}
THREADS=${THREADS:-2}
MIN=${MIN:-0.01}
PORT=${PORT:-18171}
UP=$PORT; NGX=$((PORT + 1)); WP=$((PORT + 2))
work=$(mktemp -d /tmp/weld-bench-syscalls.XXXXXX)
mkdir -p "$work/logs"
# shellcheck source=nginx_pair.sh
source "$here/nginx_pair.sh"
start_nginx_pair "$work" $UP $NGX "$THREADS" ""
"$WELD" proxy --listen 127.0.0.1:$WP --upstream http://127.0.0.1:$UP --threads "$THREADS" --no-access-log \
  2> "$work/logs/weld.log" & weld=$!; pids+=($weld)
sleep 1
nginx_workers=$(pgrep -P "$NGINX_PROXY_PID" | paste -sd,)

# cell NAME PORT MODEL PIDS(comma-separated): writes $work/NAME.counts
# ("syscall per-request" lines) and prints the requests and the rate.
cell() {
  local name=$1 port=$2 model=$3 targets=$4 out requests
  perf stat -x, -e 'syscalls:sys_enter_*' -p "$targets" -o "$work/$name.perf" &
  local perf=$!
  sleep 0.5
  out=$(BENCH_MODEL=$model wrk -t2 -c"$CONNS" -d"${DURATION}s" -s "$here/${SCRIPT:-post.lua}" \
    "http://127.0.0.1:$port${URL_PATH:-/v1/chat/completions}")
  kill -INT $perf; wait $perf || true
  requests=$(awk '/requests in/ { print $1 }' <<< "$out")
  awk -F, -v n="$requests" '$3 ~ /sys_enter_/ && $1 + 0 > 0 { sub(/.*sys_enter_/, "", $3); printf "%s %.3f\n", $3, $1 / n }' \
    "$work/$name.perf" | sort > "$work/$name.counts"
  printf '%-16s %9s requests %9s req/s\n' "$name" "$requests" "$(awk '/^Requests\/sec/ { print $2 }' <<< "$out")"
}

echo "CONNS=$CONNS THREADS=$THREADS DURATION=${DURATION}s; system calls per request"
cell nginx $NGX bench "$nginx_workers"
cell weld-untagged $WP bench "$weld"
cell weld-tagged $WP bench__schema=router "$weld"
SCRIPT=post_anthropic.lua URL_PATH=/v1/messages cell nginx-anthropic $NGX bench "$nginx_workers"
SCRIPT=post_anthropic.lua URL_PATH=/v1/messages cell weld-anthropic $WP bench "$weld"
cells="nginx weld-untagged weld-tagged nginx-anthropic weld-anthropic"
echo
# One row per kind any cell makes at least MIN of per request, and the total.
# shellcheck disable=SC2086
awk -v cells="$cells" -v min="$MIN" '
  BEGIN { nc = split(cells, c, " ") }
  FNR == 1 { i++ }
  { v[$1, i] = $2; if ($2 >= min) keep[$1] = 1; total[i] += $2 }
  END {
    printf "%-16s", "per request"; for (j = 1; j <= nc; j++) printf " %15s", c[j]; printf "\n"
    for (k in keep) {
      printf "%-16s", k; for (j = 1; j <= nc; j++) printf " %15.2f", v[k, j]; printf "\n"
    }
    printf "%-16s", "all"; for (j = 1; j <= nc; j++) printf " %15.2f", total[j]; printf "\n"
  }' $(for c in $cells; do echo "$work/$c.counts"; done) | { read -r head; echo "$head"; sort -k1,1; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
