#!/usr/bin/env bash
# The high-watermark sweep of docs/benchmarks.md: every purgatory at every lag, each run in its own
# JVM (whichever purgatory runs second in a JVM is slowed), the results appended as CSV lines to one
# file, the console output to the same name with .txt, then the chart of CPU per request by lag.
# Appending lets repeated sweeps collect in one file; the chart draws the median of repeats. Remove
# the CSV first for a fresh sweep.
#
# Run from the repository root after `mvn -B -DskipTests package`. Every setting can be overridden
# from the environment, e.g. LAGS="100 1000" DURATION=2 WARMUP=1 benchmarks/hwm-sweep.sh
set -euo pipefail

CSV=${CSV:-benchmarks/results/purgatory/hwm.csv}
PNG=${PNG:-docs/benchmarks/hwm-cpu-per-request.png}
LAGS=${LAGS:-"100 1000 10000 100000"}
PURGATORIES=${PURGATORIES:-"OURS_POSITIONS OURS KAFKA"}
WARMUP=${WARMUP:-3}
DURATION=${DURATION:-8}
JAVA_OPTS=${JAVA_OPTS:-"-Xms2g -Xmx2g"}
JAR=benchmarks/target/benchmarks.jar

mkdir -p "$(dirname "$CSV")"
for lag in $LAGS; do
    for purgatory in $PURGATORIES; do
        # shellcheck disable=SC2086 # JAVA_OPTS holds several options
        java $JAVA_OPTS -cp "$JAR" io.purgatory.benchmarks.perf.PurgatoryPerf --mode HWM --lag "$lag" \
            --purgatories "$purgatory" --warmup "$WARMUP" --duration "$DURATION" --csv "$CSV"
    done
done | tee -a "${CSV%.csv}.txt"
java -cp "$JAR" io.purgatory.benchmarks.chart.CsvChart --out "$PNG" "$CSV"
