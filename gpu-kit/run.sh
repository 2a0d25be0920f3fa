#!/usr/bin/env bash
# Runs the project on an offline machine with an NVIDIA GPU and a PyTorch (with its C++ headers), from the kit
# that gpu-kit/pack.sh made: builds DJL's JNI against that PyTorch, then runs the stages asked for and writes
# what each found to $RESULTS (summary.txt first). Needs g++, python3 with torch, and nothing from the network:
# no Java, Maven or Jupyter.
#
#   gpu-kit/run.sh [STAGE ...]      (default: jni tests bench lessons)
#
# Stages:
#   jni       build DJL's JNI against this machine's PyTorch (gpu-kit/build-jni.sh; about 30 s on 16 cores)
#   tests     the GPU test group (GpuTest, tag "gpu") $KIT_TEST_RUNS times, TF32 off as scripts/test.sh --gpu runs it,
#             then once with PyTorch's default TF32 (not counted: it shows what TF32 changes)
#   bench     bench/run.sh gpu's measurement: PyTorch, DJL's Trainer and the trainer (1 and 2 replicas on one GPU),
#             LeNet and ResNet-18 (width 64, batch 256), side by side in one run; then where a LeNet step's host time
#             goes, the trainer beside DJL's Trainer (bench StepProfile on the GPU)
#   lessons   every lesson at CI's smoke settings, run by gpu-kit/RunNotebook.java and judged by scripts/check_outputs.py,
#             but beyond-one-machine (its Spark executors train on CPUs, and the kit carries no Spark)
#   concise   multiple-gpus-concise at the book's settings (all of Fashion-MNIST, width 64, 10 epochs)
#
# Environment:
#   KIT            the kit (default build/gpu-kit/kit.tar.xz), unpacked once into $KIT_DIR (default /tmp/d2l-gpu-kit)
#   RESULTS        where results go (default build/gpu-kit/results)
#   PYTHON         a python3 with torch (default python3)
#   KIT_JNI        a libdjl_torch.so built by an earlier run against the same PyTorch: the jni stage copies it
#   KIT_TEST_RUNS  how many times the tests stage runs the group (default 3)
#   KIT_DEADLINE   seconds from the start after which no further stage or lesson starts (default none)
#   KIT_LESSON_TIMEOUT, KIT_TEST_TIMEOUT  seconds a lesson, or a run of the test group, may take (3600, 1800)
# The executed lessons go to $RESULTS/notebooks, the tests' XML reports to $RESULTS/tests-N.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
start=$SECONDS
# paths given relative to where run.sh was started from, made absolute before it moves to the checkout
kit=$(realpath -m "${KIT:-$root/build/gpu-kit/kit.tar.xz}")
kit_dir=$(realpath -m "${KIT_DIR:-/tmp/d2l-gpu-kit}")
results=$(realpath -m "${RESULTS:-$root/build/gpu-kit/results}")
[[ -n "${KIT_JNI:-}" ]] && KIT_JNI=$(realpath -m "$KIT_JNI")
python=${PYTHON:-python3}
# -s: a venv's python is a link to the system's, and only through the link is it the venv's
[[ "$python" == */* ]] && python=$(realpath -ms "$python")
cd "$root"
deadline=${KIT_DEADLINE:-0}
stages=("$@")
((${#stages[@]})) || stages=(jni tests bench lessons)
mkdir -p "$results"
summary="$results/summary.txt"
: >"$summary"
note() { printf '%s\n' "$*" | tee -a "$summary"; }
die() { note "gpu-kit/run: $*"; exit 1; }
late() { ((deadline > 0 && SECONDS - start >= deadline)); }

[[ -f "$kit" ]] || die "no kit at $kit: run gpu-kit/pack.sh on a machine with the JDK and Maven, then copy build/gpu-kit here"
# unpacked once per kit: a new kit (another checksum) replaces what an earlier one left, a broken unpack is redone
stamp=$(cksum <"$kit" | cut -d' ' -f1)
if [[ "$(cat "$kit_dir/.kit-stamp" 2>/dev/null)" != "$stamp" ]]; then
    rm -rf "$kit_dir" "$kit_dir.new" && mkdir -p "$kit_dir.new" && xz -dc "$kit" | tar -C "$kit_dir.new" -x &&
        echo "$stamp" >"$kit_dir.new/.kit-stamp" && mv "$kit_dir.new" "$kit_dir" || die "cannot unpack $kit into $kit_dir"
fi
torch=$("$python" -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null) ||
    die "$python has no torch: set PYTHON to a python3 with PyTorch"
export JAVA_HOME="$kit_dir/jre" PATH="$kit_dir/jre/bin:$PATH"
export DJL_CACHE_DIR="$kit_dir/djl-cache" DJL_OFFLINE=true
# the DJL release of the kit's jars, whose JNI build-jni.sh names for DJL to find
DJL_VERSION=$(cd "$kit_dir/lib" && ls api-*.jar 2>/dev/null | sed -n 's/^api-\([0-9.]*\)\.jar$/\1/p')
[[ -n "$DJL_VERSION" ]] || die "no DJL api jar in $kit_dir/lib: rebuild the kit with gpu-kit/pack.sh"
export DJL_VERSION
export FASHION_MNIST_DIR="$kit_dir/data" D2L_DATA_CACHE="$kit_dir/data-cache"
cp=$(sed "s:^:$kit_dir/lib/:" "$kit_dir/classpath.txt" | paste -sd:)
# fontconfig finds the kit's DejaVu fonts (the figures draw text), whatever fonts this machine has
cat >"$kit_dir/fonts.conf" <<EOF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>$kit_dir/jre/lib/fonts</dir><cachedir>$kit_dir/fontconfig-cache</cachedir></fontconfig>
EOF
export FONTCONFIG_FILE="$kit_dir/fonts.conf"
java_run() { java --enable-native-access=ALL-UNNAMED -Xss4m -cp "$cp" "$@"; }

note "gpu-kit/run $(date -u +%FT%TZ): stages ${stages[*]}"
note "$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo 'nvidia-smi: none')"
note "$(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; torch $("$python" -c 'import torch; print(torch.__version__, "CUDA", torch.version.cuda)')"

jni_env() { # exports the PYTORCH_* variables that make DJL load this machine's libtorch and the JNI built for it
    local lines line
    lines=$(PYTHON="$python" "$root/gpu-kit/build-jni.sh" "$torch" "$kit_dir/jni" "$DJL_CACHE_DIR" "$@") || return 1
    while IFS= read -r line; do export "${line?}"; done <<<"$lines"
}
jni_env --only-env 2>>"$summary" || die "cannot read the PyTorch of $torch (above)"
jni_lib="$DJL_CACHE_DIR/pytorch/$PYTORCH_VERSION-$PYTORCH_FLAVOR-linux-x86_64/$DJL_VERSION-libdjl_torch.so"

stage_jni() {
    if [[ -n "${KIT_JNI:-}" ]]; then
        cp "$KIT_JNI" "$jni_lib" || return 1
        note "jni: copied $KIT_JNI"
    else
        jni_env >"$results/jni.log" 2>&1 || { tail -n 30 "$results/jni.log" >>"$summary"; return 1; }
        note "jni: $(tail -n 1 "$results/jni.log")"
        cp "$jni_lib" "$results/libdjl_torch.so"
    fi
    java_run org.d2l.multigpu.runtime.Platform >"$results/platform.txt" 2>&1
    local rc=$?
    sed 's/^/    /' "$results/platform.txt" >>"$summary"
    return $rc
}

# JUnit's console launcher with the tests on the JVM's own class path (the lesson tests give it to JShell).
junit() { timeout "${KIT_TEST_TIMEOUT:-1800}" java -Xss4m --enable-native-access=ALL-UNNAMED \
    -cp "$kit_dir/junit-console.jar:$cp" org.junit.platform.console.ConsoleLauncher "$@"; }

stage_tests() {
    local runs=${KIT_TEST_RUNS:-3} passed=0 i
    for ((i = 1; i <= runs; i++)); do
        late && { note "tests: run $i not started (deadline)"; break; }
        # in support-lib, as Maven runs them: the tests read the lessons from ../notebooks
        (cd "$root/support-lib" && NVIDIA_TF32_OVERRIDE=0 junit execute --select-class org.d2l.multigpu.parallel.GpuTest --include-tag gpu \
            --details=tree --disable-banner --reports-dir "$results/tests-$i") >"$results/tests-$i.log" 2>&1 &&
            ! grep -q -E '\[ +0 tests successful' "$results/tests-$i.log" && passed=$((passed + 1))
        note "tests run $i: $(grep -E 'tests (successful|failed|aborted)' "$results/tests-$i.log" | tr -s ' ' | paste -sd, -)"
        grep -E '^[0-9a-zA-Z(+].* vs |differ|of the move|its own move|left behind:|MB before|✘|Expected|AssertionFailed|Error' "$results/tests-$i.log" |
            head -n 30 | sed 's/^/    /' >>"$summary"
    done
    grep -q -E '\[ +0 tests successful' "$results/tests-1.log" 2>/dev/null &&
        note "tests: none ran (no GPU that DJL sees: every test skipped itself)"
    note "tests: $passed of $runs runs passed"
    # once more with TF32 as PyTorch sets it by default (cuDNN's convolutions in TF32), for the differences it makes
    if ! late; then
        (cd "$root/support-lib" && junit execute --select-class org.d2l.multigpu.parallel.GpuTest --include-tag gpu \
            --details=tree --disable-banner) >"$results/tests-tf32.log" 2>&1
        note "tests with TF32 (not counted): $(grep -E 'tests (successful|failed)' "$results/tests-tf32.log" | tr -s ' ' | paste -sd, -)"
        grep -E ' vs |differ|of the move' "$results/tests-tf32.log" | head -n 12 | sed 's/^/    /' >>"$summary"
    fi
    ((passed == runs))
}

stage_bench() {
    local model rc=0
    for model in lenet resnet18; do
        late && { note "bench $model: not started (deadline)"; continue; }
        # a GPU step takes milliseconds: 30 timed steps of ResNet-18 too, 2 rounds
        (cd "$root" && java_run org.d2l.multigpu.bench.Bench --suite gpu --model "$model" --batch 256 \
            --steps 30 --warmup 5 --rounds 2 --python "$python" ${BENCH_ARGS:-}) >"$results/bench-$model.log" 2>&1 || rc=1
        note "bench $model:"
        grep '^|' "$results/bench-$model.log" | sed 's/^/    /' >>"$summary"
    done
    # where a LeNet step's time goes on the host, the trainer beside DJL's Trainer (bench/run.sh profile, on the GPU)
    if ! late; then
        (cd "$root" && java_run org.d2l.multigpu.bench.StepProfile lenet 300 gpu) >"$results/profile-lenet.log" 2>&1 || rc=1
        note "profile lenet on the GPU (host ms per step):"
        grep '^|' "$results/profile-lenet.log" | sed 's/^/    /' >>"$summary"
    fi
    return $rc
}

# A lesson, run by gpu-kit/RunNotebook.java (JShell in the kit's Java: the GPU machine's Python may have no ZeroMQ
# for Jupyter) in the notebook's folder as a kernel runs it, then judged by scripts/check_outputs.py.
run_lesson() { # NOTEBOOK CLAIMS LOG
    local name executed
    name=$(basename "$1" .ipynb)
    executed="$results/notebooks/$name.ipynb"
    mkdir -p "$results/notebooks"
    rm -f "$executed"
    local t=$SECONDS
    (cd "$(dirname "$1")" && timeout "${KIT_LESSON_TIMEOUT:-3600}" java --enable-native-access=ALL-UNNAMED -Xss4m \
        -cp "$cp" "$root/gpu-kit/RunNotebook.java" "$(basename "$1")" "$executed") >"$3" 2>&1
    local ran=$? report checked=1
    if [[ -f "$executed" ]]; then
        report=$("$python" "$root/scripts/check_outputs.py" "$executed" --source-dir "$(dirname "$1")" --claims "$2" 2>&1)
        checked=$?
    else
        report="no executed notebook (exit status $ran; 124: over KIT_LESSON_TIMEOUT): see $(basename "$3")"
    fi
    note "lesson $name: $( ((ran == 0 && checked == 0)) && echo PASS || echo FAIL) in $((SECONDS - t)) s, $(tail -n 1 <<<"$report")"
    ((checked == 0)) || head -n 12 <<<"$report" | sed 's/^/    /' >>"$summary"
    # where the time went: the longest cells (the training runs)
    sed -n 's/^--- cell \([0-9]*\) took \([0-9.]*\) s: /\2 s, cell \1: /p' "$3" | sort -rn | head -n 3 |
        cut -c1-110 | sed 's/^/    /' >>"$summary"
    # what the run printed about its devices, and the claims that did not hold
    grep -o -E '[0-9]+ GPU\(s\) found[^"]*|No GPU found[^"]*|(✘|not checked)[^"]{0,160}' "$executed" 2>/dev/null |
        head -n 8 | sed 's/^/    /' >>"$summary"
    ((ran == 0 && checked == 0))
}

stage_lessons() {
    local nb rc=0
    # exported for the lessons only (local -x: the later stages do not see them)
    local -x DATASET_LIMIT=${DATASET_LIMIT:-512} MAX_EPOCH=${MAX_EPOCH:-1} D2L_CLAIMS=smoke D2L_PROGRESS=false \
        D2L_RESUME=false
    for nb in notebooks/*.ipynb; do
        [[ "$nb" == *beyond-one-machine* ]] && continue # Spark's executors train on CPUs; the kit carries no Spark
        late && { note "lesson $(basename "$nb"): not started (deadline)"; rc=1; continue; }
        run_lesson "$root/$nb" smoke "$results/lesson-$(basename "$nb" .ipynb).log" || rc=1
    done
    return $rc
}

stage_concise() {
    local n
    n=$("$python" -c 'import struct,sys; print(struct.unpack(">I", open(sys.argv[1], "rb").read(8)[4:])[0])' \
        "$FASHION_MNIST_DIR/train-images-idx3-ubyte")
    ((n == 60000)) || { note "concise: the kit holds $n training images, not 60000: pack it without KIT_TRAIN_IMAGES"; return 1; }
    (unset DATASET_LIMIT MAX_EPOCH; D2L_CLAIMS=record D2L_PROGRESS=false D2L_RESUME=false \
        run_lesson "$root/notebooks/multiple-gpus-concise.ipynb" record "$results/concise.log")
}

status=0
for s in "${stages[@]}"; do
    declare -F "stage_$s" >/dev/null || die "unknown stage $s (jni, tests, bench, lessons, concise)"
    [[ "$s" == jni || -f "$jni_lib" ]] || die "no JNI for PyTorch $PYTORCH_VERSION in $jni_lib: run the jni stage first"
    if late; then note "$s: not started (deadline)"; status=1; continue; fi
    t=$SECONDS
    "stage_$s" || { status=1; note "$s: FAILED"; [[ "$s" == jni ]] && break; }
    note "$s: $((SECONDS - t)) s"
done
note "done in $((SECONDS - start)) s, status $status"
exit $status
