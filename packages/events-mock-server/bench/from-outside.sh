#!/usr/bin/env bash
# Issue 37's "measured from outside": the service started as an operator starts it (its bin, a YAML config,
# the store by URL, logs to /dev/null) and the PostgreSQL or SQLite reference (reference-store/, standalone),
# each driven by wrk (a load generator in C, not the bench's autocannon; apt-get install wrk) over a body
# written here, with none of the bench's harness: no probe, no IPC, no figures read inside the processes.
# Per size: the reference, the service, the reference again, each a 2 s warm-up then DURATION s measured, 10
# connections; every request's event_ids are fresh (from-outside.lua). After each run the events stored are
# counted in its database (or file): a run whose events were answered as duplicates or failed, not stored,
# shows, since every answered event (warm-up included) must be stored. From 100 events per request on, the
# service runs a second time with its request log off (`request_log: max_entries: 0`).
#
#   bash bench/from-outside.sh [pg|sqlite] [sizes]      (default: pg 1,100,1000)
#   env: DURATION (s, default 10), PG_URL (admin, default postgres://postgres@127.0.0.1:5432/postgres)
# Run it in packages/events-mock-server after a build (dist/bin.js). Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk > /dev/null || { echo "from-outside.sh needs wrk (apt-get install wrk)" >&2; exit 1; }
STORE=${1:-pg}
SIZES=${2:-1,100,1000}
DURATION=${DURATION:-10}
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
ACCOUNT=549755885175
TOKEN=outside-conversion-token-0123456789
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The body: complete, valid events (about 0.8 KB each, user data hashed), [<id>] made fresh per request.
body() {
  node -e '
    const { createHash } = require("node:crypto");
    const sha = (s) => createHash("sha256").update(s).digest("hex");
    const now = Math.floor(Date.now() / 1000);
    const data = Array.from({ length: Number(process.argv[1]) }, (_, i) => ({
      event_name: ["checkout", "add_to_cart", "page_visit"][i % 3],
      action_source: "web", event_time: now, event_id: `[<id>]-${i}`,
      event_source_url: "https://shop.example.com/product/123", partner_name: "direct",
      user_data: {
        em: [sha(`user${i}@example.com`)], external_id: [sha(`customer-${i}`)],
        client_ip_address: "203.0.113.7",
        client_user_agent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      },
      custom_data: {
        currency: "USD", value: "42.00", order_id: `order-${i}`, num_items: 2, content_ids: ["sku-1", "sku-2"],
        contents: [{ id: "sku-1", item_price: "20.00", quantity: 1 }, { id: "sku-2", item_price: "22.00", quantity: 1 }],
      },
    }));
    process.stdout.write(JSON.stringify({ data }));' "$1"
}

free_port() { node -e 's=require("net").createServer().listen(0,()=>{console.log(s.address().port);s.close()})'; }

wait_up() {
  for _ in $(seq 200); do
    curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0
    sleep 0.1
  done
  echo "nothing listens on port $1" >&2
  return 1
}

# load PORT SIZE -> "requests/s non-2xx requests all" of the measured run (all: with the warm-up's)
load() {
  local url="http://127.0.0.1:$1/v5/ad_accounts/$ACCOUNT/events" file="$work/body-$2.json"
  local warm
  warm=$(wrk -t 2 -c 10 -d 2 -s bench/from-outside.lua "$url" -- "$file" "$TOKEN" "w$RANDOM$RANDOM" | tail -1)
  read -r rps non2xx total < <(wrk -t 2 -c 10 -d "$DURATION" -s bench/from-outside.lua "$url" -- "$file" "$TOKEN" \
    "m$RANDOM$RANDOM" | tail -1)
  echo "$rps $non2xx $total $((total + $(cut -d' ' -f3 <<< "$warm")))"
}

count_pg() { psql -qtA "${PG_URL%/*}/$1" -c "SELECT count(*) FROM events"; }
count_sqlite() {
  node -e 'const D=require("better-sqlite3");const d=new D(process.argv[1],{readonly:true});console.log(d.prepare("SELECT count(*) AS n FROM events").get().n)' "$1"
}

cat > "$work/config.yaml" <<YAML
ad_accounts:
  - id: "$ACCOUNT"
tokens:
  - kind: conversion
    token: $TOKEN
    ad_account: "$ACCOUNT"
YAML
cp "$work/config.yaml" "$work/config-log-off.yaml"
printf 'request_log:\n  max_entries: 0\n' >> "$work/config-log-off.yaml"

# Starts the reference: REF_PORT, REF_PID and REF_WHERE (its database, or its file).
start_reference() {
  local port
  port=$(free_port)
  REF_PORT=$port
  if [ "$STORE" = pg ]; then
    node bench/reference-store/pg-reference.mjs "$PG_URL" "$port" > "$work/ref.out" 2>&1 &
  else
    node bench/reference-store/sqlite-reference.mjs "$port" "$work/ref-$port.db" > "$work/ref.out" 2>&1 &
  fi
  pids+=($!)
  REF_PID=$!
  wait_up "$port"
  if [ "$STORE" = pg ]; then
    REF_WHERE=$(sed -n 's/.*database \(ems_reference_[0-9a-f]*\).*/\1/p' "$work/ref.out")
  else
    REF_WHERE="$work/ref-$port.db"
  fi
}

start_service() {
  local port=$1 where=$2 config=$3
  if [ "$STORE" = pg ]; then
    PGOPTIONS="-c client_min_messages=warning" psql -q "$PG_URL" -c "DROP DATABASE IF EXISTS $where" -c "CREATE DATABASE $where"
    node dist/bin.js --config "$config" --port "$port" --store "${PG_URL%/*}/$where" > /dev/null 2>&1 &
  else
    node dist/bin.js --config "$config" --port "$port" --db "$where" > /dev/null 2>&1 &
  fi
  pids+=($!)
  SERVICE_PID=$!
  wait_up "$port"
}

stop() {
  kill -TERM "$1" 2>/dev/null || true
  while kill -0 "$1" 2>/dev/null; do sleep 0.1; done
}

echo "Measured from outside: $STORE, $DURATION s per run, 10 connections, $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg) before"
echo
echo "| events/request | target | events/s | vs reference (mean of its two runs) | requests | non-2xx | events stored (requests in flight at the end) |"
echo "|---:|---|---:|---:|---:|---:|---:|"
for size in ${SIZES//,/ }; do
  body "$size" > "$work/body-$size.json"
  declare -A rate=() rows=()
  # At 100 events per request and more, also the service with its request log off (C60: what the log costs).
  targets=(reference service reference-again)
  ((size >= 100)) && targets=(reference service "service, request log off" reference-again)
  for target in "${targets[@]}"; do
    if [ "${target%%,*}" = service ]; then
      port=$(free_port)
      if [ "$STORE" = pg ]; then where=ems_outside_$$; else where="$work/service-$size-${#rate[@]}.db"; fi
      config="$work/config.yaml"
      [ "$target" = service ] || config="$work/config-log-off.yaml"
      start_service "$port" "$where" "$config"
      read -r rps non2xx total all < <(load "$port" "$size")
      stop "$SERVICE_PID"
      if [ "$STORE" = pg ]; then
        stored=$(count_pg "$where")
        psql -q "$PG_URL" -c "DROP DATABASE $where WITH (FORCE)"
      else
        stored=$(count_sqlite "$where")
      fi
    else
      start_reference
      read -r rps non2xx total all < <(load "$REF_PORT" "$size")
      if [ "$STORE" = pg ]; then stored=$(count_pg "$REF_WHERE"); else stored=$(count_sqlite "$REF_WHERE"); fi
      stop "$REF_PID"
    fi
    rate[$target]=$(echo "$rps * $size" | bc -l)
    rows[$target]="$rps $non2xx $total $all $stored"
  done
  ref=$(echo "(${rate[reference]} + ${rate[reference-again]}) / 2" | bc -l)
  for target in "${targets[@]}"; do
    read -r rps non2xx total all stored <<< "${rows[$target]}"
    # wrk counts the answers it read: requests still in flight when it stopped (at most 10 per run, two runs)
    # are stored without being counted.
    extra=$((stored - all * size))
    check=$( ((extra >= 0 && extra <= 20 * size)) && echo "$stored ($((extra / size)) in flight)" ||
      echo "$stored, answered $((all * size)): MISSING")
    printf '| %s | %s | %.0f | %.2f | %s | %s | %s |\n' "$size" "$target" "${rate[$target]}" \
      "$(echo "${rate[$target]} / $ref" | bc -l)" "$total" "$non2xx" "$check"
  done
done
echo
echo "load average $(cut -d' ' -f1 /proc/loadavg) after"
