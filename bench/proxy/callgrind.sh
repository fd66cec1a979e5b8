#!/usr/bin/env bash
# Instructions per request of weld proxy, counted by callgrind: exact and
# immune to the load of a shared machine (compare builds with it; time and
# rates come from run.sh and cpu.sh). weld runs one worker thread under
# valgrind before the fixed-response upstream of run.sh (nginx returning
# canned.json), driven by wrk with 4 connections for DURATION seconds; an
# idle run of the same length (start, wait, stop) is subtracted, and the rest
# is divided by the requests served.
# Usage: bench/proxy/callgrind.sh [path/to/weld] [MODEL ...]
#   MODEL: bench (untagged, the default), bench__schema=router (tagged);
#   prefixed anthropic: (e.g. anthropic:bench) the Anthropic Messages shape
#   instead (post_anthropic.lua to /v1/messages, the upstream answering
#   canned_anthropic.json)
# Env: DURATION (s, default 5), HISTORY (earlier turns of 500 characters in
#      each request, see post.lua), PORT (first of the three ports used,
#      default 18131), PEER=nginx (profile nginx as the LLM proxy of run.sh
#      instead of weld; untagged models only). Build with symbols for annotating the
#      profiles it leaves in OUT_DIR (default a temporary directory):
#      cmake -S . -B build-prof -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS=-g
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
WELD=${1:-$here/../../build-rel/src/cli/weld}
shift || true
models=("${@:-bench}")
[ ${#models[@]} -gt 0 ] || models=(bench)
DURATION=${DURATION:-5}
PORT=${PORT:-18131}  # the three ports PORT..PORT+2 (another while a colleague runs it)
UP=$PORT; NGX=$((PORT + 1)); WP=$((PORT + 2))
work=$(mktemp -d /tmp/weld-bench-callgrind.XXXXXX)
OUT_DIR=${OUT_DIR:-$work}
mkdir -p "$OUT_DIR"
# shellcheck source=nginx_pair.sh
source "$here/nginx_pair.sh"
start_nginx_pair "$work" $UP $NGX 1
sleep 0.5

# PEER=nginx: the peer instead of weld — nginx as the LLM proxy of run.sh
# (one worker, no master process, so one process runs every request),
# profiled the same way on the same port.
if [ "${PEER:-}" = nginx ]; then
  write_nginx_proxy_conf peer "$work" $UP $WP 1 "" 0
  sed -i 's/^daemon off;/daemon off;\nmaster_process off;/' "$work/peer.conf"
fi

# Starts weld (or the peer) under callgrind, waits until it answers, runs
# "$@" (nothing for the idle run), stops it; prints the instructions it
# executed.
profile() {
  local out=$1; shift
  if [ "${PEER:-}" = nginx ]; then
    valgrind --tool=callgrind --callgrind-out-file="$out" nginx -c "$work/peer.conf" -p "$work" \
      2> "$work/logs/valgrind.log" &
  else
    valgrind --tool=callgrind --callgrind-out-file="$out" "$WELD" proxy --listen 127.0.0.1:$WP \
      --upstream http://127.0.0.1:$UP --threads 1 --no-access-log 2> "$work/logs/valgrind.log" &
  fi
  local vg=$!
  for _ in $(seq 1 120); do curl -s -o /dev/null http://127.0.0.1:$WP/healthz && break; sleep 0.5; done
  kill -0 $vg 2>/dev/null || { echo "the proxy did not start (port $WP taken?): $work/logs/valgrind.log" >&2; exit 1; }
  if [ $# -gt 0 ]; then "$@"; else sleep "$DURATION"; fi
  if [ "${PEER:-}" = nginx ]; then kill -QUIT $vg; else kill -INT $vg; fi
  wait $vg || true
  awk '/^summary:/ { print $2 }' "$out"
}

idle=$(profile "$OUT_DIR/callgrind-idle.out")
printf '%-24s %9s %12s %14s\n' model requests instructions instr/request
for model in "${models[@]}"; do
  requests_file="$work/requests-$model"
  script=post.lua path=/v1/chat/completions name=${model#anthropic:}
  [ "$name" != "$model" ] && script=post_anthropic.lua path=/v1/messages
  drive() {
    BENCH_MODEL=$name wrk -t1 -c4 -d"${DURATION}s" -s "$here/$script" "http://127.0.0.1:$WP$path" |
      awk '/requests in/ { print $1 }' > "$requests_file"
  }
  total=$(profile "$OUT_DIR/callgrind-$model.out" drive)
  requests=$(cat "$requests_file")
  awk -v m="$model" -v r="$requests" -v t="$total" -v i="$idle" 'BEGIN { printf "%-24s %9d %12d %14.0f\n", m, r, t, (t - i) / r }'
done
echo "idle run: $idle instructions; profiles in $OUT_DIR (HISTORY=${HISTORY:-0})"
