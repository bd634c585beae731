#!/bin/bash
# KafkaSideBySide 3 keys: after3 (reaper polls every 10 ms) against after4 (polls back off from 0.25 ms), alternated
for k in 3; do
  for side in after3 after4 after3 after4; do
    echo "== SBS $side keys $k $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
    java -cp /tmp/walkprof/$side/benchmarks.jar io.purgatory.benchmarks.kafka.KafkaSideBySide --module-jar /tmp/walkprof/$side/purgatory-kafka-0.1.0-SNAPSHOT.jar --rounds $1 --heap 2g -- --mode throughput --keys $k
  done
done
