#!/usr/bin/env bash
# The project's test command: setup, unit tests, then every notebook in smoke settings.
#
#   scripts/test.sh [run-notebooks.sh options and notebooks]
#   scripts/test.sh --gpu      (only the GPU group: the unit tests tagged "gpu", on this machine's GPUs)
#
# 1. scripts/setup.sh                (Jupyter, JDK/Maven checks, support jar, kernel), then where this runs:
#                                    the CPU and its flags, what the CPU check found (oneDNN's instruction set),
#                                    PyTorch, DJL and Java (runtime.Platform)
# 2. mvn -B $MVN_ARGS test           (unit tests of support-lib, output shown)
# 3. scripts/test_setup_skip.py      (setup.sh skips Maven when the jars' inputs are unchanged, rebuilds when not)
#    scripts/test_check_outputs.py   (the output checker: errors, claims and checks in smoke and record mode)
#    scripts/test_run_notebooks.py   (the runner: claims and checks counted apart, a failing check refuses, a
#                                     kernel over its memory budget fails)
#    gpu-kit/test_run_notebook.py    (the GPU kit's runner without Jupyter: outputs kept, failures reported)
#    scripts/test_colab_binder.py    (every lesson's Colab and Binder links and steps, the Spark jar on every
#                                     kernel's class path (local, Colab, Binder), binder/start's defaults)
# 4. scripts/test_kernel_interrupt.py (a real kernel: training interrupted twice, the next cell runs; ~30 s)
#    scripts/test_kernel_restart.py   (a real kernel restarted mid-run: the cell resumes from its checkpoint and
#                                     ends with an unbroken run's parameters; ~20 s)
# 5. scripts/run-notebooks.sh "$@"   (smoke: DATASET_LIMIT=512, MAX_EPOCH=1 unless set)
# Stops at the first step that fails; exit status non-zero on any failure.
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
read -ra MVN_EXTRA <<<"${MVN_ARGS:-}"

if [[ "${1:-}" == --gpu ]]; then
    # The GPU group: equivalences, leaks (with GPU memory read from the device), 2 replicas on one GPU
    # and each lesson's training code, on the GPUs; every test is skipped on a machine without one.
    # Without the bundled CPU natives (-Dgpu) when nvidia-smi lists a GPU, as scripts/setup.sh builds;
    # DJL may fetch its CUDA natives (DJL_OFFLINE=true forbids it).
    # The equivalences hold within float32's rounding: on Ampere and newer GPUs PyTorch runs cuDNN's
    # convolutions in TF32 by default (10-bit mantissa, 2^13 times coarser), which CUDA's own switch turns off
    # (on an H200, a GPU beside the CPU differed from one GPU by 4.0e-3 of the parameters' move with TF32, 1e-4 allowed).
    export NVIDIA_TF32_OVERRIDE=0
    gpu_args=(-Dgroups=gpu -Dd2l.test.excludedGroups= "-Dd2l.djl.offline=${DJL_OFFLINE:-false}")
    if wants_gpu_build; then
        gpu_args+=(-Dgpu)
    fi
    log "==> GPU group: mvn -B ${MVN_ARGS:-} ${gpu_args[*]} -pl support-lib test"
    cd "$ROOT" && exec mvn -B ${MVN_EXTRA[@]+"${MVN_EXTRA[@]}"} "${gpu_args[@]}" -pl support-lib test
fi

log "==> setup"
"$ROOT/scripts/setup.sh"

log "==> where this runs"
"${JAVA_HOME:+$JAVA_HOME/bin/}java" --enable-native-access=ALL-UNNAMED -cp "$ROOT/support-lib/target/d2l-multigpu.jar" \
    org.d2l.multigpu.runtime.Platform

log "==> unit tests: mvn -B ${MVN_ARGS:-} test"
(cd "$ROOT" && mvn -B ${MVN_EXTRA[@]+"${MVN_EXTRA[@]}"} test)

log "==> setup skips an up-to-date build"
"$PY" "$ROOT/scripts/test_setup_skip.py"

log "==> output checker tests"
"$PY" "$ROOT/scripts/test_check_outputs.py"
"$PY" "$ROOT/scripts/test_run_notebooks.py"
"$PY" "$ROOT/gpu-kit/test_run_notebook.py"

log "==> Colab and Binder checks"
"$PY" "$ROOT/scripts/test_colab_binder.py"

log "==> kernel interrupt test"
"$PY" "$ROOT/scripts/test_kernel_interrupt.py"

log "==> kernel restart test"
"$PY" "$ROOT/scripts/test_kernel_restart.py"

log "==> notebooks"
"$ROOT/scripts/run-notebooks.sh" "$@"
