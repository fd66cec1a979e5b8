#!/usr/bin/env bash
# An OTLP/HTTP receiver for the telemetry benchmark that costs next to
# nothing: nginx (one process) reading each POST's body whole, dropping it
# and answering 200 — what a collector on another machine costs weld's
# machine. The tests (tests/telemetry) decode what weld sends with the
# official decoders; the benchmark only needs a receiver that is always there
# and fast. It reads a body as a collector does, in a few large reads into
# one buffer (mirror_request_body; `return 200` alone would discard it 4 KB
# per read: 43 reads and ~1 us of this machine's CPU per proxied request,
# which a collector elsewhere does not cost), and logs each request's
# length, body included, for counting what arrived.
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
    location / {
      # The body is read whole into one buffer (for the mirror, which gets
      # nothing: /drop answers at once); the static handler then finds no
      # file and error_page turns that into 200.
      client_body_buffer_size 16m;
      client_body_in_single_buffer on;
      mirror /drop;
      mirror_request_body on;
      root $dir/empty;
      log_not_found off;
      error_page 404 405 =200 @ok;
    }
    location = /drop { internal; access_log off; return 204; }
    location @ok { return 200; }
  }
}
CONF
  nginx -c "$dir/sink.conf" &
  SINK_PID=$!
  pids+=("$SINK_PID")
}

sink_count() {
  sleep 1.2  # the access log is flushed every second
  awk '{ n++; bytes += $1 } END { printf "%d requests, %.0f bytes\n", n, bytes }' "$1/logs/sink-access.log"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  dir=$(mktemp -d /tmp/weld-otlp-sink.XXXXXX)
  pids=()
  start_sink "$dir" "${1:?usage: sink.sh PORT}"
  echo "OTLP sink on 127.0.0.1:$1 (logs in $dir/logs)"
  wait "$SINK_PID"
fi
