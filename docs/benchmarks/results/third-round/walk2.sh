#!/bin/bash
# after2 (counters batched) against after3 (+ lock-free clear), one key, all complete; and 3 keys 0.2
for r in 1 2 3; do
  for spec in "--keys 1 --fraction 1.0" "--keys 3 --fraction 0.2"; do
  for side in after2 after3; do
    echo "== r$r $side $spec $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
    java -Xms1g -Xmx1g -cp /tmp/walkprof/$side/benchmarks.jar io.purgatory.benchmarks.perf.WalkCpuPerf --purgatory ours --operations 100000 $spec --warmup 15 --rounds 15
  done
  done
done
