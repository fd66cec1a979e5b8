# Sourced by bench/proxy/run.sh and cpu.sh: the two nginx configurations
# every proxy benchmark runs against.
#   write_nginx_confs DIR UP_PORT PROXY_PORT WORKERS
# writes DIR/upstream.conf (1 worker, `return 200` with bench/proxy/canned.json
# on 127.0.0.1:UP_PORT) and DIR/proxy.conf (WORKERS workers, a plain reverse
# proxy with upstream keep-alive on 127.0.0.1:PROXY_PORT). Logs go to DIR/logs.
write_nginx_confs() {
  local dir=$1 up=$2 proxy=$3 workers=$4 canned
  local here
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  mkdir -p "$dir/logs"
  # nginx strings: escape backslashes (the canned body has \" inside arguments).
  canned=$(sed 's/\\/\\\\/g' "$here/canned.json")
  cat > "$dir/upstream.conf" <<CONF
worker_processes 1;
daemon off;
pid $dir/upstream.pid;
error_log $dir/logs/upstream-error.log;
events { worker_connections 65536; }
http {
  access_log off;
  keepalive_requests 10000000;
  client_body_temp_path $dir;
  server {
    listen 127.0.0.1:$up backlog=65535;
    location / { default_type application/json; return 200 '$canned'; }
  }
}
CONF
  cat > "$dir/proxy.conf" <<CONF
worker_processes $workers;
daemon off;
pid $dir/proxy.pid;
error_log $dir/logs/proxy-error.log;
events { worker_connections 65536; }
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
    }
  }
}
CONF
}
