#!/usr/bin/env bash
# Benchmark: examples per second of DataParallelTrainer (1, 2, 4 virtual replicas) against DJL's own
# single-device Trainer + EasyTrain, LeNet and ResNet-18, interleaved in one run; peak RSS per run.
# "averaging": parameter averaging every 1 and 3 rounds against gradient averaging, 2 virtual
# replicas, the DL4J example's LeNet, same examples per step; examples/s and bytes synchronised.
# "precision": FLOAT16 (float32 master weights, loss scaling) against FLOAT32, 1 replica, LeNet and ResNet-18.
# "spark": parameter averaging and ring allreduce (AllreduceTrainer) on Spark local-cluster[2,1,1024] (two executor
# JVMs; BENCH_ARGS="--master local" for local[2]) against the in-process trainer with 2 virtual
# replicas, averaging every 1 and 10 steps and gradient averaging; examples/s, ms per step, Spark's overhead per
# averaging round, where an allreduce step's time goes, also with 1-bit and PowerSGD compression
# (BENCH_ARGS="--configs inproc-grad,allreduce,allreduce-onebit,allreduce-powersgd" runs only those)
# (not part of "all"; e.g. BENCH_RESULTS=bench/RESULTS-spark.md bench/run.sh spark).
# "gpu": on a machine with an NVIDIA GPU (built with MVN_ARGS=-Dgpu), the trainer with 1 replica and with 2
# replicas on one GPU against DJL's Trainer on that GPU, LeNet and ResNet-18 on Fashion-MNIST (not in "all");
# BENCH_ARGS="--python python3" adds PyTorch's step on the same GPU (bench/peer/peer.py --device cuda), the ratios'
# reference. On an offline GPU machine gpu-kit/run.sh bench runs it (bench/RESULTS-gpu.md).
# "peer": the lessons' LeNet (ReLU), d2l's classic LeNet (sigmoid) and ResNet-18 (widths 16 and 64) in PyTorch (Debian's python3-torch:
# sudo apt-get install python3-torch)
# against DataParallelTrainer with 1 replica, DJL's Trainer + EasyTrain (bare, and with an Accuracy evaluator: the
# training loss and accuracy of each batch, as the trainer computes them), and the trainer without runtime.NativeMemory
# (glibc defaults, as before); 2 intra-op threads everywhere, batch 256, preloaded batches; ms/step
# (median), examples/s, step-time ratios to PyTorch and page faults per step. Without torch it says so and runs the
# Java side only. About 10 minutes on an idle 2-core machine (not part of "all").
# "widths": the peer comparison for ResNet-18 of width 16, 32 and 64 (the first stage's channels; the concise
# lesson trains width 16 on a CPU), ms/step of the trainer against PyTorch where torch is installed.
# "collectives": JMH micro-benchmark (CollectivesBenchmark) of the direct allreduce (through device 0) against Ring.allreduce on the CPU,
# 2 and 4 arrays of LeNet's and ResNet-18's parameter count, ms per call; short by default (1 fork, 2 warm-up and
# 3 measured iterations of 1 s, about 1.5 minutes); BENCH_ARGS are JMH's options there, e.g. "-f 3 -wi 5 -i 10"
# (not part of "all").
# "checkpoint": what a checkpoint after every epoch costs (issue 28): LeNet (6000 images) and ResNet-18 (512 images),
# 1 replica, SGD with momentum; epoch time with and without checkpoints, the copy the training thread waits for,
# the write to disk (background thread) and the checkpoint's size (not part of "all").
# "isa": what the CPU check's caps cost: the trainer with 1 replica at oneDNN's default instruction set against
# ONEDNN_MAX_CPU_ISA=AVX2, AVX and SSE41, LeNet (batch 256) and ResNet-18 of width 16 (not part of "all").
# "largebatch": what synchronised BatchNorm and gradient accumulation cost per step: ResNet-18 of width 16, batch 256 on
# 2 virtual replicas, plain BatchNorm against SyncBatchNorm (optSyncBatchNorm) and against 4 micro-batches per step
# (optAccumulate(4)), side by side (not part of "all").
# "compression": what gradient compression costs and saves per step: the trainer on 2 virtual replicas, uncompressed and
# with float16, 1-bit, threshold encoding and PowerSGD (rank 2), error feedback on, LeNet and ResNet-18 of width 16;
# ms per step, the time compression adds, bytes per step and the link speed at which it breaks even (not part of "all";
# BENCH_RESULTS=bench/RESULTS-compression.md bench/run.sh compression keeps bench/RESULTS.md).
# "profile": where one step's time goes, the trainer with 1 replica beside DJL's Trainer in one JVM, taking turns step by
# step: each phase's milliseconds (the trainer's own record, clock readings around DJL's forward, backward and step),
# DJL with the training loss and accuracy, and DJL again (the spread), the classic LeNet and LeNet (not part of "all";
# about 2 minutes).
# "steppath": which of the project's source files one step of fit runs code in, and how many of their lines (JaCoCo's
# agent over step 4 of an epoch): LeNet on 2 virtual replicas and on 1, gradient averaging (not part of "all"; seconds).
# Usage: bench/run.sh [lenet|resnet18|averaging|precision|spark|gpu|peer|widths|profile|steppath|collectives|checkpoint|isa|largebatch|compression|all]   (extra options through BENCH_ARGS, e.g. "--rounds 5")
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
# Spark runs on the modules' class folders instead of their jars: a jar's manifest Class-Path would put
# the support jar's target/lib (a newer Jackson than Spark accepts) ahead of the resolved versions.
spark_cp="bench/target/classes:$(sed -e "s#$root/support-lib/target/d2l-multigpu.jar#$root/support-lib/target/classes#" \
  -e "s#$root/spark-lib/target/d2l-spark.jar#$root/spark-lib/target/classes#" bench/target/classpath.txt)"
# Spark's JVM module options, as the spark-lib tests use them (spark-lib/pom.xml, spark.module.options).
spark_opts=$(sed -n 's:.*<spark.module.options>\(.*\)</spark.module.options>.*:\1:p' spark-lib/pom.xml)
run_spark() {
  java --enable-native-access=ALL-UNNAMED -Dspark.module.options="$spark_opts" -cp "$spark_cp" \
    org.d2l.multigpu.bench.SparkBench ${BENCH_ARGS:-}
}
# JMH's progress goes to the terminal, its table of results to $BENCH_RESULTS.
run_jmh() {
  local table
  table=$(mktemp)
  java --enable-native-access=ALL-UNNAMED -cp "$cp" org.openjdk.jmh.Main CollectivesBenchmark -rf text -rff "$table" \
    ${BENCH_ARGS:-} >&2
  echo '```'
  cat "$table"
  echo '```'
  rm -f "$table"
}
out=$(mktemp)
{
  echo "# Benchmark results"
  echo
  if [ "$which" = collectives ]; then
    echo "Made by \`${BENCH_ARGS:+BENCH_ARGS=\"$BENCH_ARGS\" }bench/run.sh collectives\` (JMH, ms per call; 1 fork, 2 warm-up and 3 measured iterations of 1 s unless BENCH_ARGS says otherwise): the direct allreduce (through device 0) against Ring.allreduce (ringAllreduce), k arrays of a model's parameter count on the CPU."
  elif [ "$which" = peer ]; then
    echo "Made by \`bench/run.sh peer\`. Goal (issue 19): a LeNet step within 1.1x of PyTorch's, ResNet-18 no slower than before."
  elif [[ $which == lenet || $which == resnet18 || $which == all ]]; then
    echo "Made by \`bench/run.sh $which\`. Targets (ResNet-18): 1 replica >= 0.98x and 2 virtual replicas >= 0.95x DJL's Trainer."
  else
    echo "Made by \`${BENCH_ARGS:+BENCH_ARGS=\"$BENCH_ARGS\" }bench/run.sh $which\`."
  fi
  echo
  case "$which" in
    lenet|resnet18) run --model "$which" ;;
    averaging) run --suite averaging --model dl4j --batch 256 --steps 40 --warmup 5 ;;
    precision) run --suite precision --model lenet; echo; run --suite precision --model resnet18 ;;
    spark) run_spark ;;
    collectives) run_jmh ;;
    peer|widths)
      python=${PEER_PYTHON:-/usr/bin/python3}
      peer=(--python "$python")
      if ! "$python" -c 'import torch' 2>/dev/null; then
        peer=()
        echo "PyTorch peer skipped: $python cannot import torch. Install Debian's PyTorch with"
        echo "\`sudo apt-get install python3-torch\` (or point PEER_PYTHON at a python3 that has torch) and run again."
        echo
      fi
      if [[ $which == widths ]]; then
        for w in 16 32 64; do
          run --suite peer --model resnet18-w$w --batch 256 --steps 5 --warmup 1 --rounds 2 --limit 1536 "${peer[@]}"; echo
        done
      else
        run --suite peer --model lenet --batch 256 --steps 30 --warmup 5 --rounds 5 "${peer[@]}"
        echo; run --suite peer --model lenet-sigmoid --batch 256 --steps 30 --warmup 5 --rounds 5 "${peer[@]}"
        echo; run --suite peer --model resnet18-w16 --batch 256 --steps 5 --warmup 1 --rounds 2 --limit 1536 "${peer[@]}"
        echo; run --suite peer --model resnet18 --batch 256 --steps 3 --warmup 1 --rounds 2 --limit 1024 "${peer[@]}"
      fi ;;
    compression)
      run_compression() { java --enable-native-access=ALL-UNNAMED -cp "$cp" org.d2l.multigpu.bench.CompressionBench "$@" ${BENCH_ARGS:-}; }
      run_compression --model lenet --rounds 5; echo; run_compression --model resnet18-w16 --steps 4 --rounds 2 ;;
    profile)
      run_profile() { java --enable-native-access=ALL-UNNAMED -cp "$cp" org.d2l.multigpu.bench.StepProfile "$@" ${BENCH_ARGS:-}; }
      run_profile lenet-sigmoid 300; echo; run_profile lenet 200 ;;
    steppath)
      agent=$(tr ':' '\n' < bench/target/classpath.txt | grep 'org.jacoco.agent-.*-runtime.jar')
      run_path() { java --enable-native-access=ALL-UNNAMED -javaagent:"$agent=output=none,jmx=true,includes=org.d2l.multigpu.*" \
        -cp "$cp" org.d2l.multigpu.bench.StepPath "$@"; }
      run_path 2; echo; run_path 1 ;;
    largebatch) run --suite largebatch --model resnet18-w16 --batch 256 --steps 5 --warmup 1 --rounds 3 --limit 1536 ;;
    isa) run --suite isa --model lenet; echo; run --suite isa --model resnet18-w16 --batch 256 --steps 5 --warmup 1 --rounds 2 --limit 1536 ;;
    checkpoint)
      run_checkpoint() { java --enable-native-access=ALL-UNNAMED -cp "$cp" org.d2l.multigpu.bench.CheckpointBench "$@" ${BENCH_ARGS:-}; }
      run_checkpoint --model lenet --examples 6000; echo; run_checkpoint --model resnet18 --examples 512 ;;
    gpu) run --suite gpu --model lenet --data random; echo; run --suite gpu --model resnet18 --batch 256 --data random ;;
    all) run --model lenet; echo; run --model resnet18; echo; run --suite averaging --model dl4j --batch 256 --steps 40 --warmup 5
      echo; run --suite precision --model lenet; echo; run --suite precision --model resnet18 ;;
    *) echo "unknown benchmark '$which': use lenet, resnet18, averaging, precision, spark, gpu, peer, widths, profile, steppath, collectives, checkpoint, isa, largebatch, compression or all" >&2; exit 2 ;;
  esac
} | tee "$out"
results=${BENCH_RESULTS:-bench/RESULTS.md}
mv "$out" "$results"
echo "(written to $results)"
