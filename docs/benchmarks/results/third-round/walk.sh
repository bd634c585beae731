#!/bin/bash
# WalkCpuPerf, before / after / kafka alternated; $1 = rounds
A=${AFTER:-/tmp/walkprof/after3}/benchmarks.jar
BF=/tmp/walk-before/benchmarks/target/benchmarks.jar
for r in $(seq 1 $1); do
  for spec in "--keys 1 --fraction 1.0" "--keys 3 --fraction 1.0" "--keys 3 --fraction 0.2"; do
    for side in ${SIDES:-before after kafka}; do
      case $side in before) J=$BF; P=ours;; after) J=$A; P=ours;; kafka) J=$A; P=kafka;; esac
      echo "== r$r $side $spec $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
      java -Xms1g -Xmx1g -cp $J io.purgatory.benchmarks.perf.WalkCpuPerf --purgatory $P --operations 100000 $spec --warmup 15 --rounds 15
    done
  done
done
