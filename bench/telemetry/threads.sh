#!/usr/bin/env bash
# Where the proxy's telemetry costs (docs/telemetry.md, "What it costs"): each thread's CPU time per
# tagged request, from /proc/<pid>/task/<tid>/schedstat before and after a
# wrk run, for a proxy with telemetry off and one exporting to the local sink
# (sink.sh), alternated ROUNDS times; and the sink's own CPU per request.
# The exporting proxy's sender thread is its second (started with the
# exporter, before the server's request threads; printed as `sender`).
# run.sh and compare.sh give the whole process.
# Usage: bench/telemetry/threads.sh [path/to/weld]   (a Release build)
# Env: ROUNDS (default 3), DURATION (s per wrk run, default 4), CONNS (default
#      50), THREADS (proxy workers, default 2), EXTRA (more environment for the
#      exporting proxy, e.g. "OTEL_BSP_MAX_EXPORT_BATCH_SIZE=2048 OTEL_BSP_MAX_QUEUE_SIZE=8192").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
WELD=$(realpath "${1:-$root/build-rel/src/cli/weld}")
ROUNDS=${ROUNDS:-3}; DURATION=${DURATION:-4}; CONNS=${CONNS:-50}; THREADS=${THREADS:-2}
UP=18341; NGX=18342; OFF=18343; ON=18344; SINK_PORT=18345
work=$(mktemp -d /tmp/weld-bench-threads.XXXXXX)
mkdir -p "$work/logs"
# shellcheck source=proxies.sh
source "$here/proxies.sh"
start_sink "$work" $SINK_PORT
start_nginx_pair "$work" $UP $NGX "$THREADS" "" 0
start_weld_proxy "$work" weld-off "$WELD" $OFF $UP "$THREADS"
weld_off=$WELD_PID
# shellcheck disable=SC2086
start_weld_proxy "$work" weld-on "$WELD" $ON $UP "$THREADS" OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$SINK_PORT ${EXTRA:-}
weld_on=$WELD_PID
sleep 1
post="$work/post.lua"
tagged_post "$post"
for port in $OFF $ON; do check_tagged $port; done
# "TID NS" for each thread of $1, in the order started.
threads_ns() { for task in $(ls "/proc/$1/task" | sort -n); do echo "$task $(cut -d' ' -f1 "/proc/$1/task/$task/schedstat")"; done; }
sink_ns() { cut -d' ' -f1 "/proc/$SINK_PID/schedstat"; }
for round in $(seq "$ROUNDS"); do
  for side in off on; do
    port=$OFF; pid=$weld_off
    [ $side = on ] && { port=$ON; pid=$weld_on; }
    threads_ns $pid > "$work/before"; sink0=$(sink_ns)
    requests=$(wrk -t2 -c"$CONNS" -d"${DURATION}s" -s "$post" "http://127.0.0.1:$port/v1/chat/completions" |
      awk '/requests in/ { print $1 }')
    threads_ns $pid > "$work/after"; sink1=$(sink_ns)
    # Threads of the first snapshot only (resolver threads come and go);
    # the second started is the exporting proxy's sender.
    join "$work/before" "$work/after" | awk -v side=$side -v n="$requests" -v sink=$(( sink1 - sink0 )) -v round="$round" '
      { ns = ($3 - $2) / n; total += ns
        name = NR == 1 ? "main" : (side == "on" && NR == 2 ? "sender" : "worker")
        line = line sprintf(" %s %.0f", name, ns) }
      END { printf "round %d %-3s %6d requests, ns per request: all %.0f =%s; sink %.0f\n", round, side, n, total, line, (side == "on" ? sink / n : 0) }'
  done
done
