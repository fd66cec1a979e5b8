#!/usr/bin/env bash
# Pinned workers against unpinned ones, saturated (CONNS connections, 50 by default): direct to
# the upstream, nginx (2 workers) as run.sh runs it and with
# `worker_cpu_affinity auto`, weld untagged with and without --pin-threads.
# Cells alternate REPEAT times; one line per run: path, p50 ms, p99 ms, req/s.
# Usage: bench/proxy/pinned.sh [path/to/weld]   Env: REPEAT (10), DURATION (4 s), CONNS (50)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
WELD=${1:-$here/../../build-rel/src/cli/weld}
REPEAT=${REPEAT:-10}; DURATION=${DURATION:-4}; CONNS=${CONNS:-50}
UP=18151; NGX=18152; NGXPIN=18153; WP=18154; WPIN=18155
work=$(mktemp -d /tmp/weld-bench-pinned.XXXXXX)
# shellcheck source=nginx_pair.sh
source "$here/nginx_pair.sh"
start_nginx_pair "$work" $UP $NGX 2
# A second nginx proxy, its workers pinned one per CPU.
write_nginx_proxy_conf proxy-pinned "$work" $UP $NGXPIN 2 "" 1
nginx -c "$work/proxy-pinned.conf" -p "$work" & pids+=($!)
"$WELD" proxy --listen 127.0.0.1:$WP --upstream http://127.0.0.1:$UP --threads 2 --no-access-log \
  2> "$work/logs/weld.log" & pids+=($!)
"$WELD" proxy --listen 127.0.0.1:$WPIN --upstream http://127.0.0.1:$UP --threads 2 --no-access-log --pin-threads \
  2> "$work/logs/weld-pinned.log" & pids+=($!)
sleep 1
echo "REPEAT=$REPEAT DURATION=${DURATION}s CONNS=$CONNS; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s\t%s\t%s\t%s\n' path p50_ms p99_ms req/s
for _ in $(seq 1 "$REPEAT"); do
  for cell in direct:$UP nginx:$NGX nginx-pinned:$NGXPIN weld-untagged:$WP weld-untagged-pinned:$WPIN; do
    BENCH_MODEL=bench wrk -t2 -c"$CONNS" -d"${DURATION}s" --latency -s "$here/post.lua" \
      "http://127.0.0.1:${cell##*:}/v1/chat/completions" |
      awk -v n="${cell%%:*}" 'function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
        /^ +50%/ { a = ms($2) } /^ +99%/ { c = ms($2) } /^Requests\/sec/ { d = $2 }
        END { printf "%s\t%.3f\t%.3f\t%.0f\n", n, a, c, d }'
  done
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
