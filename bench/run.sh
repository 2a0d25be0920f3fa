#!/usr/bin/env bash
# Benchmark: examples per second of DataParallelTrainer (1, 2, 4 virtual replicas) against DJL's own
# single-device Trainer + EasyTrain, LeNet and ResNet-18, interleaved in one run; peak RSS per run.
# "averaging": parameter averaging every 1 and 3 rounds against gradient averaging, 2 virtual
# replicas, the DL4J example's LeNet, same examples per step; examples/s and bytes synchronised.
# Usage: bench/run.sh [lenet|resnet18|averaging|all]   (extra options through BENCH_ARGS, e.g. "--rounds 5")
# Writes the tables to $BENCH_RESULTS (default bench/RESULTS.md) as well as to the terminal.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
which=${1:-all}
mvn -q -B ${MVN_ARGS:-} -DskipTests package
cp="bench/target/classes:$(cat bench/target/classpath.txt)"
run() {
  java --enable-native-access=ALL-UNNAMED -cp "$cp" org.d2l.multigpu.bench.Bench "$@" ${BENCH_ARGS:-}
}
out=$(mktemp)
{
  echo "# Benchmark results"
  echo
  echo "Made by \`bench/run.sh $which\`. Targets (ResNet-18): 1 replica >= 0.98x and 2 virtual replicas >= 0.95x DJL's Trainer."
  echo
  case "$which" in
    lenet|resnet18) run --model "$which" ;;
    averaging) run --suite averaging --model dl4j --batch 256 --steps 40 --warmup 5 ;;
    all) run --model lenet; echo; run --model resnet18; echo; run --suite averaging --model dl4j --batch 256 --steps 40 --warmup 5 ;;
    *) echo "unknown benchmark '$which': use lenet, resnet18, averaging or all" >&2; exit 2 ;;
  esac
} | tee "$out"
results=${BENCH_RESULTS:-bench/RESULTS.md}
mv "$out" "$results"
echo "(written to $results)"
