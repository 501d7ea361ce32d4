#!/usr/bin/env bash
# Runs N instances of the whole service behind Caddy on one machine (docs/deploy.md,
# "Self-hosting"):
#
#   infra/selfhost/run.sh [N]        # N instances (default 2) on 127.0.0.1:8001..800N
#
# Every instance is `deno task start` with the same DATA_DIR, OUTBOX_FILE and PUBLIC_URL, so
# they behave as one service: they share the SQLite KV files (a write that meets another
# process's lock is retried), the asset directory, the internal secret kept in DATA_DIR and the
# outbox. PUBLIC_URL is the proxy's address, so tokens and links are the same whichever
# instance answers. Caddy (infra/selfhost/Caddyfile, Caddy 2.7+) listens on CPS_PORT, balances
# requests over the healthy instances and keeps every /ws socket of one post on one instance.
# Without `caddy` on PATH the instances still run and the script says how to put a proxy in
# front of them.
#
# Settings (environment): CPS_PORT (8000), DATA_DIR (./data), PUBLIC_URL
# (http://localhost:$CPS_PORT), OUTBOX_FILE ($DATA_DIR/outbox.jsonl), CPS_SITE (Caddy's site
# address, :$CPS_PORT; a domain name gets HTTPS), CADDYFILE (infra/selfhost/Caddyfile), and
# every setting of the README's configuration table, passed to each instance as it is.
# Logs go to $DATA_DIR/logs/instance-<i>.log. Ctrl-C stops Caddy and every instance.
#
# One machine only: SQLite KV is shared by processes of one machine. For several machines,
# point DATA_DIR at a KV Connect server (self-hosted denokv, DATA_DIR=https://...,
# DENO_KV_ACCESS_TOKEN) and ASSETS_URL at S3, and list every machine's instances in
# CPS_UPSTREAMS.
set -euo pipefail

N="${1:-2}"
if ! [[ "$N" =~ ^[1-9][0-9]?$ ]]; then
  echo "usage: $0 [N]   (N instances, 1-99)" >&2
  exit 2
fi

cd "$(dirname "$0")/../.."
CPS_PORT="${CPS_PORT:-8000}"
export DATA_DIR="${DATA_DIR:-./data}"
export PUBLIC_URL="${PUBLIC_URL:-http://localhost:$CPS_PORT}"
export OUTBOX_FILE="${OUTBOX_FILE:-$DATA_DIR/outbox.jsonl}"
# Instances listen on loopback only; the proxy is their one client, so its
# X-Forwarded-For is believed for per-address limits.
export HOST=127.0.0.1
export TRUSTED_PROXIES="${TRUSTED_PROXIES:-127.0.0.1,::1}"
CADDYFILE="${CADDYFILE:-infra/selfhost/Caddyfile}"
LOG_DIR="$DATA_DIR/logs"
mkdir -p "$LOG_DIR"

groups=()
stop() {
  trap - INT TERM EXIT
  echo "stopping ${#groups[@]} process group(s)"
  for pgid in "${groups[@]}"; do kill -TERM -- "-$pgid" 2>/dev/null || true; done
  wait || true
}
trap stop INT TERM EXIT

wait_healthy() {
  local port=$1
  for _ in $(seq 1 240); do
    if curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  echo "instance on port $port did not become healthy; see $LOG_DIR/instance-$((port - 8000)).log" >&2
  return 1
}

# Build the web app once, so the instances do not race to build it.
deno task web:build

upstreams=()
for i in $(seq 1 "$N"); do
  port=$((8000 + i))
  echo "instance $i: 127.0.0.1:$port (log $LOG_DIR/instance-$i.log)"
  # Its own process group, so a stop reaches `deno task` and the deno it started.
  PORT=$port setsid deno task start >"$LOG_DIR/instance-$i.log" 2>&1 &
  groups+=("$!")
  upstreams+=("127.0.0.1:$port")
  # The first instance creates the KV files, the internal secret and the first-admin setup
  # alone; the others start once it is up.
  if [ "$i" -eq 1 ]; then wait_healthy "$port"; fi
done
for i in $(seq 2 "$N"); do wait_healthy $((8000 + i)); done
echo "$N instance(s) healthy, sharing DATA_DIR=$DATA_DIR"

if command -v caddy >/dev/null; then
  echo "Caddy on ${CPS_SITE:-:$CPS_PORT} -> ${upstreams[*]}; PUBLIC_URL=$PUBLIC_URL"
  CPS_SITE="${CPS_SITE:-:$CPS_PORT}" CPS_UPSTREAMS="${upstreams[*]}" \
    setsid caddy run --config "$CADDYFILE" --adapter caddyfile &
  groups+=("$!")
else
  echo "caddy is not on PATH: the instances run on ${upstreams[*]}." >&2
  echo "Put a proxy on $PUBLIC_URL in front of them (CPS_UPSTREAMS=\"${upstreams[*]}\" caddy run --config $CADDYFILE)." >&2
fi
wait -n
echo "a process exited; stopping the rest" >&2
