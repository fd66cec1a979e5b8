#!/usr/bin/env bash
# An OTLP/HTTP receiver for the telemetry benchmark that costs next to
# nothing: nginx (one process) reading each POST's body, dropping it and
# answering 200 — what a collector on another machine costs weld's machine.
# The tests (tests/telemetry) decode what weld sends with the official
# decoders; the benchmark only needs a receiver that is always there and
# fast. It logs each request's length, for counting what arrived.
#   sourced:  start_sink DIR PORT   (sets SINK_PID; adds it to `pids`)
#             sink_count DIR        (prints "N requests, B bytes")
#   run:      bash bench/telemetry/sink.sh PORT   (in the foreground)
start_sink() {
  local dir=$1 port=$2
  mkdir -p "$dir/logs"
  cat > "$dir/sink.conf" <<CONF
worker_processes 1;
master_process off;
daemon off;
pid $dir/sink.pid;
error_log $dir/logs/sink-error.log;
events { worker_connections 1024; }
http {
  log_format length '\$request_length';
  access_log $dir/logs/sink-access.log length buffer=64k flush=1s;
  client_body_temp_path $dir;
  client_max_body_size 0;
  keepalive_requests 10000000;
  server {
    listen 127.0.0.1:$port;
    location / { return 200; }
  }
}
CONF
  nginx -c "$dir/sink.conf" &
  SINK_PID=$!
  pids+=("$SINK_PID")
}

sink_count() {
  sleep 1.2  # the access log is flushed every second
  awk '{ n++; bytes += $1 } END { printf "%d requests, %d bytes\n", n, bytes }' "$1/logs/sink-access.log"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  dir=$(mktemp -d /tmp/weld-otlp-sink.XXXXXX)
  pids=()
  start_sink "$dir" "${1:?usage: sink.sh PORT}"
  echo "OTLP sink on 127.0.0.1:$1 (logs in $dir/logs)"
  wait "$SINK_PID"
fi
