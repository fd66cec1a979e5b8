# Sourced by bench/proxy/run.sh and cpu.sh: the two nginx servers every proxy
# benchmark runs against, and the cleanup of what a benchmark started.
#   start_nginx_pair DIR UP_PORT PROXY_PORT WORKERS [LOCATION_DIRECTIVES] [PIN]
# writes and starts DIR/upstream.conf (1 worker, `return 200` with
# bench/proxy/canned.json on 127.0.0.1:UP_PORT, and with
# bench/proxy/canned_anthropic.json for POST /v1/messages) and DIR/proxy.conf
# (WORKERS workers, a reverse proxy configured as an LLM proxy must be —
# upstream keep-alive, `proxy_buffering off` and `proxy_request_buffering
# off` so streams are not held back — on 127.0.0.1:PROXY_PORT, plus
# LOCATION_DIRECTIVES in its location, e.g.
# `client_body_buffer_size 1m;`; with PIN=1 its workers are pinned one per
# CPU, `worker_cpu_affinity auto`); sets NGINX_PROXY_PID (the proxy's master). Logs go to
# DIR/logs. Every process started is added to `pids`, killed on exit.
# write_nginx_proxy_conf (below) writes one more proxy configuration, e.g. a
# pinned twin beside the pair (bench/proxy/pinned.sh).
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

# The lines both configurations start with: NAME WORKERS DIR.
nginx_conf_head() {
  printf 'worker_processes %s;\ndaemon off;\npid %s/%s.pid;\nerror_log %s/logs/%s-error.log;\n' "$2" "$3" "$1" "$3" "$1"
  printf 'events { worker_connections 65536; }\n'
}

# write_nginx_proxy_conf NAME DIR UP_PORT PROXY_PORT WORKERS LOCATION_DIRECTIVES PIN
# writes DIR/NAME.conf: WORKERS workers (pinned one per CPU when PIN=1), a
# reverse proxy to 127.0.0.1:UP_PORT with upstream keep-alive and no
# buffering either way (as an LLM proxy must be: a buffered stream reaches
# the client only at its end) on 127.0.0.1:PROXY_PORT, LOCATION_DIRECTIVES in
# its location.
write_nginx_proxy_conf() {
  local name=$1 dir=$2 up=$3 proxy=$4 workers=$5 location=$6 pin=$7
  { nginx_conf_head "$name" "$workers" "$dir"; if [ "$pin" = 1 ]; then echo 'worker_cpu_affinity auto;'; fi; cat <<CONF
http {
  access_log off;
  keepalive_requests 10000000;
  client_body_temp_path $dir;
  proxy_temp_path $dir;
  upstream fixed { server 127.0.0.1:$up; keepalive 256; }
  server {
    listen 127.0.0.1:$proxy backlog=65535;
    location / {
      proxy_pass http://fixed;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
      $location
    }
  }
}
CONF
  } > "$dir/$name.conf"
}

start_nginx_pair() {
  local dir=$1 up=$2 proxy=$3 workers=$4 location=${5:-} pin=${6:-0} canned canned_anthropic here
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  mkdir -p "$dir/logs"
  # nginx strings: escape backslashes (the canned body has \" inside arguments).
  canned=$(sed 's/\\/\\\\/g' "$here/canned.json")
  canned_anthropic=$(sed 's/\\/\\\\/g' "$here/canned_anthropic.json")
  { nginx_conf_head upstream 1 "$dir"; cat <<CONF
http {
  access_log off;
  keepalive_requests 10000000;
  client_body_temp_path $dir;
  server {
    listen 127.0.0.1:$up backlog=65535;
    location / { default_type application/json; return 200 '$canned'; }
    location = /v1/messages { default_type application/json; return 200 '$canned_anthropic'; }
  }
}
CONF
  } > "$dir/upstream.conf"
  write_nginx_proxy_conf proxy "$dir" "$up" "$proxy" "$workers" "$location" "$pin"
  nginx -c "$dir/upstream.conf" -p "$dir" & pids+=($!)
  nginx -c "$dir/proxy.conf" -p "$dir" & NGINX_PROXY_PID=$!; pids+=($NGINX_PROXY_PID)
}
