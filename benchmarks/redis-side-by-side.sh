#!/usr/bin/env bash
# Blocking pops side by side: Redis (Debian's redis-server) and examples/redis-blocking, each server in its own
# process, started fresh for each run (Redis with --protected-mode no: the clients come from 127.0.0.1 to 127.0.0.8), the two alternated (odd rounds Redis first, even rounds ours first), the
# same load tool (BlockingPopLoad, raw RESP2 over Netty) against both. Prints one result line per run and the
# machine's load; docs/benchmarks.md has the figures.
#   Build first: mvn -B -pl benchmarks,examples/redis-blocking -am package -DskipTests
#   Run:         benchmarks/redis-side-by-side.sh [rounds [scenarios]] > benchmarks/results/redis/side-by-side.txt
#                (scenarios: any of handoff, memory, timeouts; all three by default)
#   (LOAD_CLASSPATH overrides the load tool's classpath, benchmarks/target/benchmarks.jar)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
rounds=${1:-3}
scenarios=${2:-handoff memory timeouts}
jar=examples/redis-blocking/target/example-redis-blocking.jar
load=(java -Xmx2g -cp "${LOAD_CLASSPATH:-benchmarks/target/benchmarks.jar}" io.purgatory.benchmarks.redis.BlockingPopLoad)
work=$(mktemp -d)
server_pid=""
trap '[[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start_server redis|ours: sets server_pid and port, returns once the server answers PING
start_server() {
  if [[ $1 == redis ]]; then
    port=$(free_port)
    redis-server --port "$port" --bind 127.0.0.1 --protected-mode no --save '' --appendonly no --maxclients 19500 --loglevel warning \
      > "$work/redis.log" 2>&1 &
    server_pid=$!
  else
    rm -f "$work/port"
    java -Xmx1g -jar "$jar" --port 0 --port-file "$work/port" > "$work/ours.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 300); do [[ -s "$work/port" ]] && break; sleep 0.1; done
    port=$(cat "$work/port")
  fi
  for _ in $(seq 300); do redis-cli -p "$port" PING > /dev/null 2>&1 && return 0; sleep 0.1; done
  echo "server $1 did not start" >&2
  return 1
}

stop_server() {
  kill "$server_pid"
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

run() { # run redis|ours load-options...
  local server=$1
  shift
  start_server "$server"
  "${load[@]}" --label "$server" --port "$port" --pid "$server_pid" "$@"
  stop_server
}

echo "# $(date -u +%FT%TZ) $(nproc) cores, $(grep MemTotal /proc/meminfo | tr -s ' '), $(redis-server --version | cut -d' ' -f1-3), $(java -version 2>&1 | head -1)"
for round in $(seq "$rounds"); do
  order=(redis ours)
  if (( round % 2 == 0 )); then order=(ours redis); fi
  echo "# round $round: $(uptime)"
  for scenario in $scenarios; do
    for server in "${order[@]}"; do
      case $scenario in
        handoff) run "$server" --scenario handoff --clients 10000 --keys 1000 ;;
        # 18,000: the most this machine allows (20,000 open files per process, a hard limit)
        memory) run "$server" --scenario handoff --clients 18000 --keys 1000 --pushes 100000 --warmup 20000 ;;
        timeouts) run "$server" --scenario timeouts --clients 10000 --keys 1000 ;;
      esac
    done
  done
done
