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

echo "== building (mvn -B -q -DskipTests package -pl purgatory-kafka/kafka-4.4,purgatory-kafka-cluster -am)"
mvn -B -q -DskipTests package -pl purgatory-kafka/kafka-4.4,purgatory-kafka-cluster -am

exec java -cp "purgatory-kafka-cluster/target/classes:$(cat purgatory-kafka-cluster/target/runtime.classpath)" \
  io.purgatory.kafka.cluster.KafkaDemo "$@"
