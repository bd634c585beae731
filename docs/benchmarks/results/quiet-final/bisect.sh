#!/bin/bash
cd /work/main
for j in /tmp/before/purgatory-kafka.jar /tmp/after/purgatory-kafka-timer.jar /tmp/after/purgatory-kafka-walk.jar /tmp/after/purgatory-kafka.jar; do
  echo "== $j $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  java -cp /tmp/after/benchmarks.jar io.purgatory.benchmarks.kafka.KafkaSideBySide --module-jar $j --rounds 2 --heap 2g -- --mode throughput --keys 1 | grep -E "round|expiry|opsPer"
done
