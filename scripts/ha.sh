#!/usr/bin/env bash
# A highly available PostgreSQL on this machine, for trying and testing failover: two
# PostgreSQL nodes driven by Patroni, with synchronous replication that never
# acknowledges a commit the standby lacks, and one etcd member as Patroni's store
# (docs/operations.md, "High availability", says why one). Everything listens on
# loopback; Debian's packages (patroni, etcd-server, postgresql) are installed if missing.
#
#   scripts/ha.sh install         install the packages (as root), start nothing
#   scripts/ha.sh up              start the cluster (made on first use); last line:
#                                 DATABASE_URL=postgresql://...,.../yokai?target_session_attrs=read-write
#   scripts/ha.sh status          the members and their roles; last line: DATABASE_URL=...
#   scripts/ha.sh kill-primary [--patroni]
#                                 kill -9 the primary's PostgreSQL (and its Patroni)
#   scripts/ha.sh switchover      a planned switchover to the standby
#   scripts/ha.sh wait-healthy [S]
#                                 wait up to S s (120) for a running leader and a
#                                 streaming synchronous standby (the only one Patroni
#                                 would promote)
#   scripts/ha.sh down            stop everything and delete the cluster's files
#
# YOKAI_HA_DIR (default /tmp/yokai-ha) holds the cluster; YOKAI_HA_PORT (default 54330)
# is the first of its ports: PostgreSQL on +1 and +2, Patroni's REST API on +11 and +12,
# etcd on +20 (clients) and +21 (peers).
set -euo pipefail
cd "$(dirname "$0")/.."

DIR=${YOKAI_HA_DIR:-/tmp/yokai-ha}
BASE=${YOKAI_HA_PORT:-54330}
PASSWORD=${YOKAI_HA_PASSWORD:-yokai-ha-local}
ETCD_PORT=$((BASE + 20))
ETCD_PEER=$((BASE + 21))
NODES=(node1 node2)
pg_port() { echo $((BASE + ${1#node})); }
rest_port() { echo $((BASE + 10 + ${1#node})); }

say() { echo "scripts/ha.sh: $*" >&2; }

install() {
  local missing=()
  command -v patroni >/dev/null || missing+=(patroni)
  command -v etcd >/dev/null || [ -x /usr/bin/etcd ] || missing+=(etcd-server)
  ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || missing+=(postgresql)
  command -v curl >/dev/null || missing+=(curl)
  [ ${#missing[@]} -eq 0 ] && return
  if [ "$(id -u)" != 0 ]; then
    say "missing ${missing[*]}: sudo apt-get install ${missing[*]}"
    exit 2
  fi
  # No "main" cluster of Debian's own: this script's nodes are the only servers.
  mkdir -p /etc/postgresql-common/createcluster.d
  echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.d/yokai-ha.conf
  apt-get install -y -q "${missing[@]}" >/dev/null \
    || (apt-get update -q >/dev/null && apt-get install -y -q "${missing[@]}" >/dev/null)
}

# PostgreSQL refuses to run as root: as root, the cluster runs as the postgres user.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

bin_dir() { ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1; }

database_url() {
  echo "DATABASE_URL=postgresql://postgres:${PASSWORD}@127.0.0.1:$(pg_port node1),127.0.0.1:$(pg_port node2)/yokai?target_session_attrs=read-write"
}

# The cluster as Patroni's REST API gives it, from whichever node answers.
cluster_json() {
  local node
  for node in "${NODES[@]}"; do
    if curl -sf --max-time 2 "http://127.0.0.1:$(rest_port "$node")/cluster"; then
      return 0
    fi
  done
  return 1
}

# "<name> <role> <state>" per member.
members() {
  cluster_json | python3 -c '
import json, sys
for m in json.load(sys.stdin).get("members", []):
    print(m["name"], m["role"], m["state"], m.get("lag", 0))'
}

leader() { members 2>/dev/null | awk '$2 == "leader" && $3 == "running" {print $1}'; }

# Wait (up to $1 s) for a running leader and a streaming synchronous standby.
wait_healthy() {
  local deadline=$((SECONDS + $1)) m
  while [ $SECONDS -lt $deadline ]; do
    m=$(members 2>/dev/null || true)
    if echo "$m" | grep -q " leader running" && echo "$m" | grep -Eq " sync_standby (streaming|running)"; then
      return 0
    fi
    sleep 0.5
  done
  say "the cluster did not become healthy in $1 s:"
  echo "$m" >&2
  return 1
}

start_etcd() {
  if pgrep -f "etcd --name yokai-etcd --data-dir $DIR/etcd" >/dev/null; then
    return
  fi
  as_owner mkdir -p "$DIR/etcd"
  as_owner setsid etcd --name yokai-etcd --data-dir "$DIR/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER" \
    --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER" \
    --initial-cluster "yokai-etcd=http://127.0.0.1:$ETCD_PEER" \
    >"$DIR/etcd.log" 2>&1 </dev/null &
  local deadline=$((SECONDS + 30))
  until curl -sf --max-time 1 "http://127.0.0.1:$ETCD_PORT/health" >/dev/null; do
    if [ $SECONDS -ge $deadline ]; then
      say "etcd did not start (see $DIR/etcd.log)"
      exit 1
    fi
    sleep 0.2
  done
}

# The pid of a node's Patroni (as_owner's runuser forks it: its own pid is not it).
patroni_pid() { pgrep -f "bin/patroni $DIR/$1/patroni.yml" | head -1 || true; }

start_node() {
  local node=$1 nodedir="$DIR/$1"
  if [ -n "$(patroni_pid "$node")" ]; then
    return
  fi
  as_owner mkdir -p "$nodedir"
  chmod 700 "$nodedir" 2>/dev/null || true
  sed -e "s|@NAME@|$node|" -e "s|@PG_PORT@|$(pg_port "$node")|" \
    -e "s|@REST_PORT@|$(rest_port "$node")|" -e "s|@DIR@|$nodedir|g" \
    -e "s|@BIN_DIR@|$(bin_dir)|" -e "s|@ETCD@|127.0.0.1:$ETCD_PORT|" \
    -e "s|@PASSWORD@|$PASSWORD|g" deploy/ha/patroni.yml.in >"$nodedir/patroni.yml"
  [ "$(id -u)" = 0 ] && chown -R postgres: "$nodedir"
  as_owner setsid patroni "$nodedir/patroni.yml" >>"$nodedir/patroni.log" 2>&1 </dev/null &
}

up() {
  install
  mkdir -p "$DIR"
  [ "$(id -u)" = 0 ] && chown postgres: "$DIR"
  start_etcd
  start_node node1
  # The first node bootstraps the cluster; the second then clones it.
  local deadline=$((SECONDS + 60))
  until [ -n "$(leader)" ]; do
    if [ $SECONDS -ge $deadline ]; then
      say "no leader after 60 s (see $DIR/node1/patroni.log)"
      exit 1
    fi
    sleep 0.5
  done
  start_node node2
  wait_healthy 120
  local url="postgresql://postgres:${PASSWORD}@127.0.0.1:$(pg_port "$(leader)")/postgres"
  if ! psql -qtA "$url" -c "SELECT 1 FROM pg_database WHERE datname = 'yokai'" | grep -q 1; then
    psql -q "$url" -c "CREATE DATABASE yokai"
  fi
  status
}

status() {
  if ! members >/dev/null 2>&1; then
    say "no cluster is running in $DIR (scripts/ha.sh up)"
    exit 1
  fi
  echo "member role state lag"
  members
  database_url
}

kill_primary() {
  local node pid
  node=$(leader)
  if [ -z "$node" ]; then
    say "no running primary"
    exit 1
  fi
  # The postmaster and every process of it at once, as when the server dies: a backend
  # left without its postmaster would go on serving its client (a LISTEN that never
  # hears again) and keep a new postmaster from starting.
  pid=$(head -1 "$DIR/$node/data/postmaster.pid")
  local kids
  kids=$(pgrep -P "$pid" | tr '\n' ' ' || true)
  # One kill for all; a backend that ended between the listing and the kill is gone
  # already, which kill reports as an error: not one here.
  # shellcheck disable=SC2086
  kill -9 "$pid" $kids 2>/dev/null || true
  echo "killed PostgreSQL of $node (pid $pid and its $(echo $kids | wc -w) processes)"
  if [ "${1:-}" = "--patroni" ]; then
    pid=$(patroni_pid "$node")
    kill -9 "$pid"
    echo "killed Patroni of $node (pid $pid)"
  fi
}

switchover() {
  local from to
  from=$(leader)
  to=$(members | awk '$2 == "sync_standby" {print $1}' | head -1)
  if [ -z "$from" ] || [ -z "$to" ]; then
    say "a switchover needs a running primary and a synchronous standby"
    exit 1
  fi
  curl -sf --max-time 60 -X POST "http://127.0.0.1:$(rest_port "$from")/switchover" \
    -H 'Content-Type: application/json' -d "{\"leader\": \"$from\", \"candidate\": \"$to\"}"
  echo
  wait_healthy 120
  echo "switched over from $from to $to"
}

down() {
  local node pid
  for node in "${NODES[@]}"; do
    pid=$(patroni_pid "$node")
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  for node in "${NODES[@]}"; do
    pid=$(patroni_pid "$node")
    if [ -n "$pid" ]; then
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    if [ -f "$DIR/$node/data/postmaster.pid" ]; then
      kill -9 "$(head -1 "$DIR/$node/data/postmaster.pid")" 2>/dev/null || true
    fi
  done
  local etcd="etcd --name yokai-etcd --data-dir $DIR/etcd"
  pkill -f "$etcd" 2>/dev/null || true
  for _ in $(seq 50); do pgrep -f "$etcd" >/dev/null || break; sleep 0.2; done
  pkill -9 -f "$etcd" 2>/dev/null || true
  rm -rf "$DIR"
}

case "${1:-}" in
  install) install ;;
  up) up ;;
  status) status ;;
  kill-primary) shift; kill_primary "$@" ;;
  switchover) switchover ;;
  wait-healthy) wait_healthy "${2:-120}" ;;
  down) down ;;
  *)
    echo "usage: scripts/ha.sh install|up|status|kill-primary [--patroni]|switchover|wait-healthy [S]|down" >&2
    exit 2
    ;;
esac
