#!/bin/bash
# quiet-machine measurements after the merge: before = c697675 jars (/tmp/before), after = merged main (/tmp/after)
cd /work/main
O=/tmp/quiet/final; mkdir -p $O
BB=/tmp/before/benchmarks.jar; AB=/tmp/after/benchmarks.jar
L() { echo "$(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"; }
for r in 1 2 3; do
  for side in before after kafka; do
    case $side in before) J=$BB; P=OURS;; after) J=$AB; P=OURS;; kafka) J=$AB; P=KAFKA;; esac
    echo "== MAX r$r $side $(L)"
    java -Xms2g -Xmx2g -cp $J io.purgatory.benchmarks.perf.PurgatoryPerf --mode MAX --purgatories $P --keys-per-request 3 --complete-fraction 0.8
  done
done > $O/max.txt 2>&1
for r in 1 2 3; do
  for side in before after kafka; do
    case $side in before) J=$BB; P=ours;; after) J=$AB; P=ours;; kafka) J=$AB; P=kafka;; esac
    for spec in "--keys 1 --fraction 1.0" "--keys 3 --fraction 0.2"; do
      echo "== WALK r$r $side $spec $(L)"
      java -Xms1g -Xmx1g -cp $J io.purgatory.benchmarks.perf.WalkCpuPerf --purgatory $P --operations 100000 $spec --warmup 15 --rounds 15
    done
  done
done > $O/walk.txt 2>&1
for r in 1 2 3; do
  for side in before after kafka netty; do
    case $side in before) J=$BB; T=PURGATORY;; after) J=$AB; T=PURGATORY;; kafka) J=$AB; T=KAFKA;; netty) J=$AB; T=NETTY;; esac
    echo "== TIMER r$r $side $(L)"
    java -Xms2g -Xmx2g -cp $J io.purgatory.benchmarks.timer.TimerCpuPerf --timer $T --warmup 10000000 --operations 20000000
  done
done > $O/timer.txt 2>&1
for r in 1 2; do
  echo "== RECURRING r$r after $(L)"
  java -Xmx4g -cp $AB io.purgatory.benchmarks.timer.RecurringTimerPerf --tasks 1000000 --period-ms 1000 --timers PURGATORY,PURGATORY_ON_REAPER,NETTY,KAFKA
done > $O/recurring.txt 2>&1
for k in 1 3; do
  echo "== SCALE after keys $k $(L)"
  java -Xms2g -Xmx2g -cp $AB io.purgatory.benchmarks.perf.PurgatoryPerf --mode SCALE --purgatories OURS --keys-per-request $k
done > $O/scale.txt 2>&1
for k in 1 3; do
  echo "== SBS after keys $k $(L)"
  java -cp $AB io.purgatory.benchmarks.kafka.KafkaSideBySide --module-jar /tmp/after/purgatory-kafka.jar --rounds 3 --heap 2g -- --mode throughput --keys $k
done > $O/sbs.txt 2>&1
echo "== INFLIGHT $(L)" > $O/inflight.txt
java -cp $AB io.purgatory.benchmarks.kafka.ClusterBench --mode INFLIGHT --rate 7500 --record-size 100 --producers 1000 --rounds 2 --warmup 10 --duration 20 --csv $O/cluster-inflight.csv 2>&1 | grep -v " WARN " >> $O/inflight.txt
echo "== end $(L)" >> $O/inflight.txt
echo done > $O/DONE
