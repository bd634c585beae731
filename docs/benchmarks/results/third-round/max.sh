#!/bin/bash
# PurgatoryPerf MAX, 3 keys, 80% completed: before (main c697675), after, Kafka alternated, one purgatory per JVM
A=${AFTER:-/tmp/walkprof/after3}/benchmarks.jar
BF=/tmp/walk-before/benchmarks/target/benchmarks.jar
for r in $(seq 1 $1); do
  for side in before after kafka; do
    case $side in before) J=$BF; P=OURS;; after) J=$A; P=OURS;; kafka) J=$A; P=KAFKA;; esac
    echo "== MAX r$r $side $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
    java -Xms2g -Xmx2g -cp $J io.purgatory.benchmarks.perf.PurgatoryPerf --mode MAX --purgatories $P --keys-per-request 3 --complete-fraction 0.8
  done
done
