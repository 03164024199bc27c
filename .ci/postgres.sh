#!/usr/bin/env bash
# A throwaway PostgreSQL server on 127.0.0.1 for the PostgreSQL store tests.
#
#   eval "$(.ci/postgres.sh start)"   # starts it, prints `export A2A_TEST_DATABASE_URL=...`
#   .ci/postgres.sh stop              # stops the server it started (by its PID) and removes its data
#   .ci/postgres.sh run -- CMD ARGS   # start, run CMD with A2A_TEST_DATABASE_URL set, always stop
#   .ci/postgres.sh pause             # stops the server but keeps its data (an outage)
#   .ci/postgres.sh resume            # starts it again on the same data and port
#
# Data lives in a temp dir ($A2A_PG_DIR, default /tmp/effect-a2a-pg); trust auth on loopback only; fsync off
# (the data is thrown away). As root (CI), the server runs as the `postgres` user, since PostgreSQL refuses
# to run as root. When no PostgreSQL is installed and we are root, it is installed with apt-get.
set -euo pipefail

STATE_DIR="${A2A_PG_DIR:-/tmp/effect-a2a-pg}"
DB_NAME="a2a_test"

log() { echo "postgres.sh: $*" >&2; }

find_bindir() {
  local dir
  if command -v pg_config >/dev/null 2>&1; then
    dir="$(pg_config --bindir 2>/dev/null || true)"
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
  fi
  # Debian/Ubuntu keep the server binaries per major version; take the newest.
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
  done
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v initdb)"; return 0
  fi
  return 1
}

ensure_installed() {
  if find_bindir >/dev/null; then return 0; fi
  if [ "$(id -u)" != "0" ]; then
    log "PostgreSQL is not installed; install it (e.g. apt-get install -y postgresql) or run as root"
    return 1
  fi
  log "installing PostgreSQL with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq postgresql >&2
  find_bindir >/dev/null
}

# Runs a command as the server's OS user: `postgres` when we are root, ourselves otherwise.
as_owner() {
  if [ "$(id -u)" = "0" ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pick_port() {
  local port i
  for i in $(seq 1 50); do
    port=$((20000 + RANDOM % 40000))
    if ! port_in_use "$port"; then echo "$port"; return 0; fi
  done
  return 1
}

pg_start() {
  as_owner "$1/pg_ctl" -D "$STATE_DIR/data" -l "$STATE_DIR/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $2 -c unix_socket_directories=$STATE_DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >/dev/null
}

start() {
  ensure_installed
  local bindir
  bindir="$(find_bindir)"
  if [ -f "$STATE_DIR/url" ] && [ -f "$STATE_DIR/data/postmaster.pid" ]; then
    log "already running (state in $STATE_DIR)"
    echo "export A2A_TEST_DATABASE_URL=$(cat "$STATE_DIR/url")"
    return 0
  fi
  rm -rf "$STATE_DIR"
  mkdir -p "$STATE_DIR"
  chmod 700 "$STATE_DIR"
  if [ "$(id -u)" = "0" ]; then chown postgres: "$STATE_DIR"; fi

  as_owner "$bindir/initdb" -D "$STATE_DIR/data" --auth=trust --username=postgres --encoding=UTF8 \
    --no-locale >"$STATE_DIR/initdb.log" 2>&1 || { cat "$STATE_DIR/initdb.log" >&2; return 1; }

  local port attempt
  for attempt in 1 2 3 4 5; do
    port="$(pick_port)"
    if pg_start "$bindir" "$port"; then
      echo "$port" >"$STATE_DIR/port"
      break
    fi
    log "start on port $port failed (attempt $attempt)"
    port=""
  done
  if [ -z "$port" ]; then tail -n 30 "$STATE_DIR/server.log" >&2 || true; return 1; fi

  as_owner "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres "$DB_NAME"
  local url="postgres://postgres@127.0.0.1:$port/$DB_NAME"
  echo "$url" >"$STATE_DIR/url"
  log "PostgreSQL $("$bindir/pg_ctl" --version | awk '{print $3}') on 127.0.0.1:$port, pid $(head -n 1 "$STATE_DIR/data/postmaster.pid")"
  echo "export A2A_TEST_DATABASE_URL=$url"
}

stop() {
  if [ ! -d "$STATE_DIR" ]; then return 0; fi
  local pidfile="$STATE_DIR/data/postmaster.pid"
  if [ -f "$pidfile" ]; then
    local pid bindir
    pid="$(head -n 1 "$pidfile")"
    bindir="$(find_bindir || true)"
    if [ -n "$bindir" ]; then
      as_owner "$bindir/pg_ctl" -D "$STATE_DIR/data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
    fi
    # Still there (pg_ctl missing or stuck): stop exactly the postmaster we started, by its PID.
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
    fi
    log "stopped pid $pid"
  fi
  rm -rf "$STATE_DIR"
}

# An outage: the server stops (open connections are closed), its data stays for `resume`.
pause() {
  [ -f "$STATE_DIR/port" ] || { log "not started (no state in $STATE_DIR)"; return 1; }
  as_owner "$(find_bindir)/pg_ctl" -D "$STATE_DIR/data" -m fast -w -t 30 stop >/dev/null
  log "paused"
}

resume() {
  [ -f "$STATE_DIR/port" ] || { log "not started (no state in $STATE_DIR)"; return 1; }
  pg_start "$(find_bindir)" "$(cat "$STATE_DIR/port")"
  log "resumed on port $(cat "$STATE_DIR/port")"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  pause) pause ;;
  resume) resume ;;
  run)
    shift
    [ "${1:-}" = "--" ] && shift
    [ "$#" -gt 0 ] || { log "usage: $0 run -- CMD [ARGS...]"; exit 2; }
    trap stop EXIT
    eval "$(start)"
    export A2A_TEST_DATABASE_URL
    "$@"
    ;;
  *)
    echo "usage: $0 start | stop | pause | resume | run -- CMD [ARGS...]" >&2
    exit 2
    ;;
esac
