#!/usr/bin/env bash
# The demo, start to finish: builds the broker and client, starts the broker on a free port with
# follower replica 2 stalling for 4 s after every 3 s of fetching (out of the ISR after 2 s of it),
# drives acks=-1 produce load at it with the client (live lines, then the summary: acks versus
# timeouts), and stops the broker.
# While it runs, the broker's dashboard shows the same live, in a browser: the script prints its URL.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

usage() {
  cat <<'EOF'
Usage: ./demo.sh [--keep] [DEMO-CLIENT OPTIONS...]

Builds demo-broker and demo-client and what they use (mvn -B -DskipTests package -pl
demo-broker,demo-client -am; the first build takes a few minutes, and shows each module as it
builds), starts demo-broker on a free port with follower 2 stalling 4 s of every 7 s (it leaves
the ISR after 2 s of a stall and rejoins once it catches up), runs demo-client against it (3000
acks=-1 requests at 300/s: about 10 s), prints the summary, and stops the broker: about 12 s
after the dashboard's address is printed (about 40 s with DEMO_GROUP).

  --keep        keep the load going and demo-broker (and its dashboard) up until Ctrl-C
  -h, --help    this help, without building anything
  other options go to demo-client, e.g. ./demo.sh --requests 30000 --rate 300 (100 s);
                its own options: java -jar demo-client/target/demo-client.jar --help (after a build)

Environment:
  DEMO_HTTP_PORT=8080   serve the dashboard on that port instead of a free one
  DEMO_GROUP=NAME       then read the records back as consumer group NAME: two consumers split the
                        topic, a third member joins, crashes (stops heartbeating) 6 s after its first
                        assignment, and its session expires 10 s later (the dashboard's groups panel);
                        with --keep, the group reads beside the load

See docs/demo.md for what happens inside, every option, and more scenarios.
EOF
}

keep=false
client_args=()
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    --keep) keep=true ;;
    *) client_args+=("$arg") ;;
  esac
done

# Maven's own output, cut to one line per module built (and a line per 100 files downloaded on a first
# run), errors in full; without the escape codes Maven 3.8 writes even with -B, so a pipe or a file gets text
build_progress() {
  awk '{ gsub(/\033\[[0-9;]*m/, "") }
       /^\[INFO\] Building .*\[[0-9]+\/[0-9]+\]$/ { print "   " $3 " " $NF; fflush(); next }
       /Download(ing|ed) from / { if (++downloads % 100 == 1) { print "   downloading plugins and dependencies (" downloads " files so far)"; fflush() } next }
       /^\[ERROR\]|BUILD FAILURE/ { print; fflush() }'
}

echo "== building demo-broker and demo-client (mvn -B -DskipTests package -pl demo-broker,demo-client -am; a few minutes the first time)"
mvn -B -DskipTests package -pl demo-broker,demo-client -am 2>&1 | build_progress

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

echo "== starting demo-broker: topic demo with 3 partitions, followers 1 and 2; replica 2 stalls 4 s of every 7 s and"
echo "   leaves the ISR after 2 s of a stall (--replica-lag-time-max-ms 2000; Kafka's default is 30 s)"
java -XX:+ExitOnOutOfMemoryError -jar demo-broker/target/demo-broker.jar --port 0 --port-file "$work/port" \
  --http-port "${DEMO_HTTP_PORT:-0}" --http-port-file "$work/http-port" \
  --topic demo:3 --replicas 2 --replica-lag-ms 5 --replica-lag-jitter-ms 3 --replica-lag-time-max-ms 2000 \
  --stall-replica 2 --healthy-ms 3000 --stall-ms 4000 --group-initial-rebalance-delay-ms 500 &
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

group_consume() {
  java -jar demo-client/target/demo-client.jar --bootstrap "localhost:$port" --topic demo \
    --group "$DEMO_GROUP" --consumers 2 --crash-after-ms 6000 --consume-ms 25000
}

status=0
if [[ "$keep" == true ]]; then
  echo "   the load and the broker go on until Ctrl-C (--keep)"
  if [[ -n "${DEMO_GROUP:-}" ]]; then
    echo "== consumer group $DEMO_GROUP reads topic demo beside the load: 2 consumers; one more member crashes 6 s after its first assignment"
    group_consume &
    group_pid=$!
  fi
  echo "== running demo-client against localhost:$port until Ctrl-C: acks=-1, request timeout 1000 ms"
  # Ctrl-C reaches the client, which prints its summary; the EXIT trap then stops the broker
  trap 'echo; echo "== stopping demo-broker"' INT
  java -jar demo-client/target/demo-client.jar --bootstrap "localhost:$port" --topic demo \
    --requests 3000 --rate 300 --concurrency 500 --acks -1 --timeout-ms 1000 --record-size 100 ${client_args[@]+"${client_args[@]}"} \
    --requests 0 || true
  [[ -z "${group_pid:-}" ]] || kill -TERM "$group_pid" 2>/dev/null || true
  stop_broker
  broker_pid=""
  exit 0
fi

if [[ -n "${DEMO_GROUP:-}" ]]; then
  echo "   the broker stops when the client and the group are done (about 40 s from now); ./demo.sh --keep keeps it up until Ctrl-C"
else
  echo "   the broker stops when the client is done (about 12 s from now); ./demo.sh --keep keeps it up until Ctrl-C"
fi

echo "== running demo-client against localhost:$port: acks=-1, request timeout 1000 ms"
java -jar demo-client/target/demo-client.jar --bootstrap "localhost:$port" --topic demo \
  --requests 3000 --rate 300 --concurrency 500 --acks -1 --timeout-ms 1000 --record-size 100 ${client_args[@]+"${client_args[@]}"} || status=$?

if [[ -n "${DEMO_GROUP:-}" && "$status" -eq 0 ]]; then
  echo "== consumer group $DEMO_GROUP: 2 consumers read topic demo back; one more member crashes 6 s after its first assignment"
  echo "   they read every record sent, timed-out ones too: as in Kafka, a produce that times out waiting for its"
  echo "   in-sync replicas was still appended by the leader (its client is told REQUEST_TIMED_OUT, not that it was lost)"
  group_consume || status=$?
fi

echo "== stopping demo-broker"
stop_broker
broker_pid=""
exit "$status"
