# Sourced by the telemetry benchmarks (run.sh, compare.sh, threads.sh): what
# they share around the weld proxies they measure. Sources
# bench/proxy/nginx_pair.sh (the canned upstream; `pids`, cleaned up on exit)
# and sink.sh (the OTLP receiver), then defines:
#   start_weld_proxy DIR NAME WELD PORT UP THREADS [VAR=VALUE ...]
#       starts `WELD proxy` on 127.0.0.1:PORT before the upstream on UP with
#       THREADS workers and the environment given (e.g. the OTLP endpoint),
#       logging to DIR/logs/NAME.log; sets WELD_PID (added to `pids`)
#   tagged_post FILE     writes FILE, a wrk script POSTing the tagged request
#                        (the `router` agent of bench/proxy's registry)
#   check_tagged PORT    exits unless the proxy on PORT answers it as the agent must
proxies_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../proxy/nginx_pair.sh
source "$proxies_here/../proxy/nginx_pair.sh"
# shellcheck source=sink.sh
source "$proxies_here/sink.sh"

start_weld_proxy() {
  local dir=$1 name=$2 weld=$3 port=$4 up=$5 threads=$6
  shift 6
  env "$@" "$weld" proxy --listen "127.0.0.1:$port" --upstream "http://127.0.0.1:$up" --threads "$threads" \
    --no-access-log 2> "$dir/logs/$name.log" &
  WELD_PID=$!
  pids+=("$WELD_PID")
}

TAGGED_BODY='{"model":"bench__schema=router","messages":[]}'

tagged_post() {
  printf "wrk.method = \"POST\"\nwrk.body = '%s'\nwrk.headers[\"Content-Type\"] = \"application/json\"\n" \
    "$TAGGED_BODY" > "$1"
}

check_tagged() {
  curl -sf -X POST -H 'content-type: application/json' -d "$TAGGED_BODY" "http://127.0.0.1:$1/v1/chat/completions" |
    grep -q 'refund' || { echo "proxy on port $1: tagged answer wrong" >&2; exit 1; }
}
