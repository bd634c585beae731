#!/bin/bash
# KafkaSideBySide throughput: module before (main c697675) and after, alternated, each against stock in its own run
A=/tmp/walkprof/after3
BF=/tmp/walk-before
for k in 3 1; do
  for side in before after; do
    case $side in before) J=$BF/benchmarks/target/benchmarks.jar; M=$BF/purgatory-kafka/target/purgatory-kafka-0.1.0-SNAPSHOT.jar;; after) J=$A/benchmarks.jar; M=$A/purgatory-kafka-0.1.0-SNAPSHOT.jar;; esac
    echo "== SBS $side keys $k $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
    java -cp $J io.purgatory.benchmarks.kafka.KafkaSideBySide --module-jar $M --rounds $1 --heap 2g -- --mode throughput --keys $k
  done
done
