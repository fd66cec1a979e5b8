# Sourced by the telemetry benchmarks (run.sh, compare.sh, threads.sh): the
# tagged request they send through weld proxy (the `router` agent of
# bench/proxy's registry, answered by its canned upstream).
#   tagged_post FILE       writes FILE, a wrk script POSTing it
#   check_tagged PORT      exits unless the proxy on PORT answers it as the agent must
TAGGED_BODY='{"model":"bench__schema=router","messages":[]}'

tagged_post() {
  printf "wrk.method = \"POST\"\nwrk.body = '%s'\nwrk.headers[\"Content-Type\"] = \"application/json\"\n" \
    "$TAGGED_BODY" > "$1"
}

check_tagged() {
  curl -sf -X POST -H 'content-type: application/json' -d "$TAGGED_BODY" "http://127.0.0.1:$1/v1/chat/completions" |
    grep -q 'refund' || { echo "proxy on port $1: tagged answer wrong" >&2; exit 1; }
}
