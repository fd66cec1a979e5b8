#!/usr/bin/env bash
# Resident memory of weld proxy while it holds N streaming requests open
# (the upstream, hold_upstream.mjs, keeps every stream open and quiet), each
# carrying HISTORY earlier turns of 500 characters. MODEL picks untagged
# (bench) or tagged (bench__schema=router: weld pings the waiting client).
# run.sh measures 5,000 short ones of each; this is for other sizes.
# Usage: bench/proxy/hold.sh [path/to/weld] [N=2000] [HISTORY=100] [MODEL=bench]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
WELD=${1:-$here/../../build-rel/src/cli/weld}
N=${2:-2000}; HISTORY=${3:-100}; MODEL=${4:-bench}
UP=18141; WP=18142
ulimit -n "$(ulimit -Hn)"
work=$(mktemp -d /tmp/weld-bench-hold.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
node "$here/hold_upstream.mjs" $UP > "$work/port" & pids+=($!)
"$WELD" proxy --listen 127.0.0.1:$WP --upstream http://127.0.0.1:$UP --threads 2 --no-access-log --keepalive 1 \
  --idle-timeout 300 2> "$work/weld.log" & weld=$!; pids+=($weld)
sleep 0.7
rss() { awk '/VmRSS/ { print $2 }' /proc/$weld/status; }
echo "weld idle RSS: $(rss) kB"
HISTORY=$HISTORY HOLD_SECONDS=5 node "$here/hold_streams.mjs" "http://127.0.0.1:$WP/v1/messages" "$N" "$MODEL" \
  > "$work/hold.json" & holder=$!; pids+=($holder)
for _ in $(seq 1 120); do [ -s "$work/hold.json" ] && break; sleep 0.5; done
sleep 1
echo "$N streams, HISTORY=$HISTORY, model $MODEL: $(cat "$work/hold.json") weld RSS $(rss) kB"
wait $holder || true
