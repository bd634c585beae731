#!/usr/bin/env bash
# The demo, start to finish: builds the broker and client, starts the broker on a free port with
# follower replica 2 stalling for 2.5 s after every 3 s of fetching, drives acks=-1 produce load
# at it with the client (live lines, then the summary: acks versus timeouts), and stops the broker.
# While it runs, the broker's dashboard shows the same live, in a browser: the script prints its URL.
# Extra arguments go to the client, e.g. ./demo.sh --requests 30000 --rate 300 (100 s, to watch the page longer).
# DEMO_HTTP_PORT=8080 ./demo.sh serves the dashboard on that port instead of a free one.
# DEMO_GROUP=demo-group ./demo.sh then reads the records back as that consumer group: two consumers
# split the topic, a third member joins and crashes (stops heartbeating) after 6 s, and its session
# expires 10 s later (watch the dashboard's "Consumer groups" panel).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

echo "== building (mvn -B -q -DskipTests package)"
mvn -B -q -DskipTests package

work="$(mktemp -d)"
broker_pid=""
stop_broker() {
  if [[ -n "$broker_pid" ]] && kill -0 "$broker_pid" 2>/dev/null; then
    kill -TERM "$broker_pid"
    wait "$broker_pid" || true
  fi
  rm -rf "$work"
}
trap stop_broker EXIT

echo "== starting demo-broker: topic demo with 3 partitions, followers 1 and 2, replica 2 stalls 2.5 s of every 5.5 s"
java -jar demo-broker/target/demo-broker.jar --port 0 --port-file "$work/port" \
  --http-port "${DEMO_HTTP_PORT:-0}" --http-port-file "$work/http-port" \
  --topic demo:3 --replicas 2 --replica-lag-ms 5 --replica-lag-jitter-ms 3 \
  --stall-replica 2 --healthy-ms 3000 --stall-ms 2500 --group-initial-rebalance-delay-ms 500 &
broker_pid=$!

for _ in $(seq 1 300); do
  [[ -s "$work/port" && -s "$work/http-port" ]] && break
  kill -0 "$broker_pid" 2>/dev/null || { echo "demo-broker did not start" >&2; exit 1; }
  sleep 0.1
done
[[ -s "$work/port" && -s "$work/http-port" ]] || { echo "demo-broker did not report its ports within 30 s" >&2; exit 1; }
port="$(tr -d '[:space:]' < "$work/port")"
http_port="$(tr -d '[:space:]' < "$work/http-port")"

echo "== dashboard: http://127.0.0.1:$http_port/  (live acks, timeouts, ISR; stall and resume followers there)"
echo "   metrics:   http://127.0.0.1:$http_port/metrics"

echo "== running demo-client against localhost:$port: acks=-1, request timeout 1000 ms"
status=0
java -jar demo-client/target/demo-client.jar --bootstrap "localhost:$port" --topic demo \
  --requests 3000 --rate 300 --concurrency 500 --acks -1 --timeout-ms 1000 --record-size 100 "$@" || status=$?

if [[ -n "${DEMO_GROUP:-}" && "$status" -eq 0 ]]; then
  echo "== consumer group $DEMO_GROUP: 2 consumers read topic demo back; one more member crashes after 6 s"
  java -jar demo-client/target/demo-client.jar --bootstrap "localhost:$port" --topic demo \
    --group "$DEMO_GROUP" --consumers 2 --crash-after-ms 6000 --consume-ms 25000 || status=$?
fi

echo "== stopping demo-broker"
stop_broker
broker_pid=""
exit "$status"
