#!/bin/bash
# usage: sbs.sh rounds keys threads jar-names...
R=$1; K=$2; T=$3; shift 3
for r in $(seq $R); do for j in "$@"; do cp=$j.jar:bench.jar; [ $j = stock ] && cp=bench.jar; echo "$j $(java -Xms2g -Xmx2g -cp $cp io.purgatory.benchmarks.kafka.KafkaApiWorkload --mode throughput --keys $K --threads $T | tail -1 | cut -d' ' -f4-)"; done; done
