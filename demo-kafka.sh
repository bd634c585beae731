#!/usr/bin/env bash
# The Kafka demo, start to finish: builds purgatory-kafka and the cluster tool, starts three real Apache Kafka
# 4.4.0 brokers (KRaft, loopback, free ports) with purgatory-kafka first on their classpath, runs Kafka's own
# kafka-producer-perf-test (acks=all) and kafka-consumer-perf-test against them, prints what our MBeans show for
# Kafka's purgatories on each broker (parked, completed, expired, lateness), and stops the brokers.
# Extra arguments go to the demo, e.g. ./demo-kafka.sh --records 500000 --throughput -1, or --stock for Kafka's
# own purgatory (then our MBeans are absent), or --help.
# Kafka's jars come from Maven Central (through Maven); the brokers' files and logs go to target/demo-kafka/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

run_demo() {
  exec java -cp "purgatory-kafka-cluster/target/classes:$(cat purgatory-kafka-cluster/target/runtime.classpath)" \
    io.purgatory.kafka.cluster.KafkaDemo "$@"
}

for arg in "$@"; do
  if [[ "$arg" == "-h" || "$arg" == "--help" ]]; then
    if [[ -s purgatory-kafka-cluster/target/runtime.classpath ]]; then
      run_demo --help
    fi
    cat <<'USAGE'
Usage: ./demo-kafka.sh [OPTIONS]

Builds purgatory-kafka for Kafka 4.4 and the cluster tool, starts three Kafka 4.4.0 brokers on loopback with the
purgatory-kafka jar first on their classpath, runs Kafka's kafka-producer-perf-test (acks=all) and
kafka-consumer-perf-test against them, prints purgatory-kafka's MBeans for Kafka's purgatories, and
stops the brokers (about a minute). The demo's own options (--records, --throughput, --stock, ...)
are listed here once it has been built: run ./demo-kafka.sh once, or
mvn -B -q -DskipTests package -pl purgatory-kafka/kafka-4.4,purgatory-kafka-cluster -am.
USAGE
    exit 0
  fi
done

echo "== building (mvn -B -q -DskipTests package -pl purgatory-kafka/kafka-4.4,purgatory-kafka-cluster -am)"
# without the escape codes Maven 3.8 writes even with -B, so that a pipe or a file gets text
mvn -B -q -DskipTests package -pl purgatory-kafka/kafka-4.4,purgatory-kafka-cluster -am 2>&1 | sed -u 's/\x1b\[[0-9;]*m//g'
run_demo "$@"
