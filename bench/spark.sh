#!/usr/bin/env bash
# Benchmark: parameter averaging on Spark local[k] against the in-process DataParallelTrainer with
# ParameterAveraging on k virtual replicas (LeNet, Fashion-MNIST), averaging every 1 and 10 steps;
# examples/s and, for Spark, the overhead per averaging round. Each run in its own JVM, interleaved.
# Usage: bench/spark.sh   (options through BENCH_ARGS, e.g. "--rounds 5 --limit 12800 --batch 128 --workers 2")
# Appends the table to bench/RESULTS.md as well as printing it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
mvn -q -B ${MVN_ARGS:-} -DskipTests package
# The modules' class folders instead of their jars: a jar's manifest Class-Path would put the support
# jar's own target/lib (a newer Jackson than Spark accepts) ahead of the Maven-resolved versions.
cp="bench/target/classes:$(sed -e "s#$root/support-lib/target/d2l-multigpu.jar#$root/support-lib/target/classes#" \
  -e "s#$root/spark-lib/target/d2l-spark.jar#$root/spark-lib/target/classes#" bench/target/classpath.txt)"
# Spark's JVM module options, as the spark-lib tests use them (spark-lib/pom.xml, spark.module.options).
spark_opts=$(sed -n 's:.*<spark.module.options>\(.*\)</spark.module.options>.*:\1:p' spark-lib/pom.xml)
out=$(mktemp)
java --enable-native-access=ALL-UNNAMED -Dspark.module.options="$spark_opts" -cp "$cp" \
  org.d2l.multigpu.bench.SparkBench ${BENCH_ARGS:-} | tee "$out"
{ echo; cat "$out"; } >> bench/RESULTS.md
rm -f "$out"
echo "(appended to bench/RESULTS.md)"
