#!/usr/bin/env bash
# Executes notebooks with the project-local Java kernel and checks their outputs for errors.
#
#   scripts/run-notebooks.sh [--full | --record | --binder] [--no-html] [NOTEBOOK.ipynb ...]
#
# Default ("smoke"): small, fast settings: DATASET_LIMIT=512 and MAX_EPOCH=1 unless already set.
#   Executed notebooks, their HTML and logs go to build/notebooks/; the sources are never touched.
# --full    no DATASET_LIMIT/MAX_EPOCH defaults (values already in the environment are still used),
#           no per-cell timeout unless CELL_TIMEOUT is set.
# --record  re-records the saved outputs: runs with DATASET_LIMIT=$RECORD_DATASET_LIMIT (6000) and
#           MAX_EPOCH=$RECORD_MAX_EPOCH (3) (an empty value means no limit), and copies each executed notebook over its source in
#           notebooks/ only if it passed. Absolute paths of this checkout are removed from outputs.
# --binder  as on Binder: the kernel BINDER_KERNEL (default jjava; scripts/binder-limits.sh installs JJava and
#           runs this inside Binder's 1 CPU and 2 GB) started through binder/start, whose defaults apply
#           (DATASET_LIMIT=3000, MAX_EPOCH=3); claims as a learner's run prints them; no cell timeout.
# --no-html skip the HTML export.
# Claims and checks: lessons state what their run shows with the jar's Claim.that(...) (a claim about
#   the outcome) and what their code must satisfy with Claim.check(...) (a formula or an invariant);
#   each prints a line starting with ✔ or ✘ ("✔ check: ..." for a check). The runner exports D2L_CLAIMS
#   (smoke, or record for --record and --full). In smoke mode a claim or check that does not hold is
#   printed as not checked (the data is too small to show most points) and does not fail; in record
#   and full mode it fails the notebook, so that a recording whose run contradicts its prose is never
#   saved, and so does a lesson with fewer than 3 claims. Each notebook's line ends with the two
#   counts, e.g. "claims: 9 hold of 9; checks: 10 hold of 10".
# Without NOTEBOOK arguments, every notebooks/*.ipynb runs (in name order) and build/notebooks/ is
# emptied first.
#
# All notebooks run, even after a failure; for each failure the notebook, cell (number, execution
# count, first source line) and error message are printed. The last line is
# "notebooks: N passed, M failed". Exit status 1 if any failed or none were found.
#
# Every cell runs even after an error (nbconvert allow_errors), so the HTML shows the whole notebook;
# scripts/check_outputs.py then decides: error outputs (except in cells tagged raises-exception),
# rapaio's stream messages for failures that have no error status, and %load of missing files.
# A kernel that hangs at start-up is retried: rapaio 3.0.1 has a start-up race (a message that arrives
# before its handlers are set kills that socket's thread), measured at 1 in 10 starts within 60 s and
# 2 in 5 within 20 s on a busy 2-core machine; a normal start answers in 3-16 s there.
#
# Memory: the kernel's peak resident memory (its JVM's VmHWM, scripts/peak_rss.py) is printed beside each
#   notebook's time; a notebook whose kernel went over KERNEL_MEMORY_BUDGET_MB fails, so that a lesson that
#   would die on Binder's 2 GB (1 CPU; Jupyter needs the rest) fails here first.
#
# Environment:
#   CELL_TIMEOUT          seconds per cell (default 1800; --record 3600; --full none)
#   KERNEL_MEMORY_BUDGET_MB  the kernel's peak resident memory allowed (default 1536, as on Binder; --full and
#                         --record, the lessons' own settings: 4096, the least memory on which the lessons
#                         keep freed arrays for speed, NativeMemory.KEEP_MIN_BYTES)
#   KERNEL_HEAP           the kernel's -Xmx (default 640m, binder/start's; --record and --full 2g)
#   D2L_MEMORY_LIMIT      the memory the lessons count on in the default (smoke) mode (default 2g, Binder's)
#   KERNEL_START_TIMEOUT  seconds to wait for the kernel's first answer (default 30; a normal start
#                         answers in 1-16 s, a hung one never does)
#   KERNEL_START_RETRIES  new attempts after a start-up hang (default 6)
#   D2L_PROGRESS          progress bars in the executed notebooks (default false)
#   DATASET_LIMIT, MAX_EPOCH, RECORD_DATASET_LIMIT, RECORD_MAX_EPOCH: see above
# Run scripts/setup.sh first (scripts/test.sh does).
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
isolate_jupyter

mode=smoke
html=1
notebooks=()
for arg in "$@"; do
    case "$arg" in
        --full) mode=full ;;
        --record) mode=record ;;
        --binder) mode=binder ;;
        --no-html) html=0 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) die "unknown option $arg (see --help)" ;;
        *) [[ -f "$arg" ]] || die "no such notebook: $arg"
           notebooks+=("$(cd "$(dirname "$arg")" && pwd)/$(basename "$arg")") ;;
    esac
done
all=0
if ((${#notebooks[@]} == 0)); then
    all=1
    for nb in "$ROOT"/notebooks/*.ipynb; do
        [[ -f "$nb" ]] && notebooks+=("$nb")
    done
fi

case "$mode" in
    smoke)
        export DATASET_LIMIT="${DATASET_LIMIT:-512}" MAX_EPOCH="${MAX_EPOCH:-1}"
        # The kernel as on Binder: its heap as binder/start sets it (the JVM's default, a quarter of the
        # machine's memory, lets the heap grow past what the lessons use, and the budget would measure that),
        # and 2 GB for the lessons' memory choices (D2L_MEMORY_LIMIT: the allocator gives freed arrays back).
        export JDK_JAVA_OPTIONS="-Xmx${KERNEL_HEAP:-640m}${JDK_JAVA_OPTIONS:+ $JDK_JAVA_OPTIONS}"
        export D2L_MEMORY_LIMIT="${D2L_MEMORY_LIMIT:-2g}"
        cell_timeout="${CELL_TIMEOUT:-1800}" claims=smoke memory_budget="${KERNEL_MEMORY_BUDGET_MB:-1536}" ;;
    record)
        export DATASET_LIMIT="${RECORD_DATASET_LIMIT-6000}" MAX_EPOCH="${RECORD_MAX_EPOCH-3}"
        # a heap of its own, not the JVM's quarter of this machine's memory, which grows lazily into the
        # budget (beyond-one-machine: 4,581 MB resident on a 24 GB machine)
        export JDK_JAVA_OPTIONS="-Xmx${KERNEL_HEAP:-2g}${JDK_JAVA_OPTIONS:+ $JDK_JAVA_OPTIONS}"
        # glibc's arenas, one per thread up to 8 per core, each keep freed memory: Spark's task threads
        # made beyond-one-machine's kernel hold 4,390 MB with a 2 GB heap
        export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
        cell_timeout="${CELL_TIMEOUT:-3600}" claims=record memory_budget="${KERNEL_MEMORY_BUDGET_MB:-4096}" ;;
    binder) # binder/start sets the defaults as system properties, which the environment would override
        unset DATASET_LIMIT MAX_EPOCH
        cell_timeout="${CELL_TIMEOUT:--1}" claims=smoke memory_budget="${KERNEL_MEMORY_BUDGET_MB:-1536}" ;;
    full)
        export JDK_JAVA_OPTIONS="-Xmx${KERNEL_HEAP:-2g}${JDK_JAVA_OPTIONS:+ $JDK_JAVA_OPTIONS}"
        export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
        cell_timeout="${CELL_TIMEOUT:--1}" claims=record memory_budget="${KERNEL_MEMORY_BUDGET_MB:-4096}" ;;
esac
if [[ "$mode" == binder ]]; then
    unset D2L_CLAIMS # a learner's run: claims judged as Binder prints them
else
    export D2L_CLAIMS=$claims
fi
# The per-epoch progress bar is for people watching; executed outputs keep only the results.
export D2L_PROGRESS="${D2L_PROGRESS:-false}"
# An executed run is a whole run: lessons that checkpoint start afresh instead of resuming (D2L_RESUME=true keeps them).
export D2L_RESUME="${D2L_RESUME:-false}"
start_timeout="${KERNEL_START_TIMEOUT:-30}"
start_attempts=$((${KERNEL_START_RETRIES:-6} + 1))

[[ -f "$KERNEL_DIR/kernel.json" ]] || die "kernel not installed in $KERNEL_DIR: run scripts/setup.sh first"
[[ -n "$PY" ]] || die "no python3 found for scripts/check_outputs.py"
if ((${#notebooks[@]} == 0)); then
    log "No notebooks found in notebooks/."
    log "notebooks: 0 passed, 0 failed"
    exit 1
fi

OUT="$ROOT/build/notebooks"
[[ "$mode" == binder ]] && OUT="$ROOT/build/notebooks-binder"
if ((all)); then
    rm -rf "$OUT" # no results of notebooks that no longer exist
fi
mkdir -p "$OUT" "$JUPYTER_RUNTIME_DIR"
timeout_text=none
((cell_timeout > 0)) && timeout_text="${cell_timeout}s"
log "Running ${#notebooks[@]} notebook(s), mode $mode: DATASET_LIMIT=${DATASET_LIMIT:-<unset>}" \
    "MAX_EPOCH=${MAX_EPOCH:-<unset>}, cell timeout $timeout_text, kernel memory budget ${memory_budget} MB," \
    "output in ${OUT#"$ROOT"/}/"

# Wall-clock time with 0.1 s resolution (EPOCHREALTIME: bash >= 5; else whole seconds).
now() { local t="${EPOCHREALTIME:-$SECONDS}"; echo "${t/,/.}"; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# Kernel start-up hangs, as nbclient/jupyter_client report them (nothing else is retried).
START_HANG='Kernel didn.t respond in [0-9]+ seconds|Kernel died before replying to kernel_info|Timeout waiting for kernel_info'

# execute NOTEBOOK NAME LOG: nbconvert with the kernel named in the notebook (java), into $OUT/NAME;
# its kernel's peak resident memory in MB goes to $OUT/NAME.peak-mb (scripts/peak_rss.py).
execute() {
    local peak_file="$OUT/${2%.ipynb}.peak-mb" status=0
    run_nbconvert "$@" &
    local pid=$!
    "$PY" "$ROOT/scripts/peak_rss.py" "$pid" "$peak_file" &
    local watcher=$!
    wait "$pid" || status=$?
    wait "$watcher" || true
    return "$status"
}
run_nbconvert() {
    local how=() kernel=()
    if [[ "$mode" == binder ]]; then
        how=("$ROOT/binder/start")
        kernel=(--ExecutePreprocessor.kernel_name="${BINDER_KERNEL:-jjava}")
    fi
    ${how[@]+"${how[@]}"} jupyter nbconvert --to notebook --execute \
        --ExecutePreprocessor.allow_errors=True \
        --ExecutePreprocessor.timeout="$cell_timeout" \
        --ExecutePreprocessor.startup_timeout="$start_timeout" \
        --ExecutePreprocessor.shutdown_kernel=immediate \
        --ExecutePreprocessor.record_timing=False ${kernel[@]+"${kernel[@]}"} \
        --output-dir "$OUT" --output "$2" "$1" >>"$3" 2>&1
}

# Last exception line of a failed nbconvert run and what follows it (cell preview of a timeout).
nbconvert_error() {
    grep -v '^\[[0-9-]* [0-9:]*\] \[INFO' "$1" |
        awk '/^[A-Za-z_][A-Za-z0-9_.]*(Error|Exception|Interrupt)(: |$)/ { buf = "" ; on = 1 }
             on { buf = buf "      " $0 "\n" }
             END { printf "%s", buf }' | head -n 20
}

passed=0
failed=0
failed_names=()
suite_start=$(now)
for nb in "${notebooks[@]}"; do
    name="$(basename "$nb" .ipynb)"
    logfile="$OUT/$name.log"
    : >"$logfile"
    rm -f "$OUT/$name.ipynb" "$OUT/$name.html"
    start=$(now)
    attempt=1
    ok=1
    while :; do
        echo "=== attempt $attempt: $(date '+%F %T')" >>"$logfile"
        if execute "$nb" "$name.ipynb" "$logfile"; then
            break
        fi
        if tail -n 30 "$logfile" | grep -Eq "$START_HANG" && ((attempt < start_attempts)); then
            log "  $name: kernel hung at start-up, retrying (attempt $((attempt + 1)) of $start_attempts)"
            attempt=$((attempt + 1))
            continue
        fi
        ok=0
        break
    done
    exec_time=$(since "$start")
    peak_mb="$(cat "$OUT/$name.peak-mb" 2>/dev/null || true)"
    peak_mb="${peak_mb//[^0-9]/}"
    peak_mb="${peak_mb:-0}"
    memory=", peak memory ${peak_mb} MB"

    report=""
    if ((ok)); then
        check_args=(--source-dir "$(dirname "$nb")" --claims "$claims")
        if [[ "$mode" == record ]]; then
            check_args+=(--relativize "$(dirname "$nb")" --relativize "$ROOT")
        fi
        report="$("$PY" "$ROOT/scripts/check_outputs.py" "$OUT/$name.ipynb" "${check_args[@]}")" || ok=0
        if ((peak_mb > memory_budget)); then
            ok=0
            report="${report:+$report
}  the kernel's peak resident memory, ${peak_mb} MB, is over the budget of ${memory_budget} MB (KERNEL_MEMORY_BUDGET_MB): on Binder's 2 GB this lesson would die"
        fi
    else
        report="  nbconvert failed (log: ${logfile#"$ROOT"/}):
$(nbconvert_error "$logfile")"
    fi
    if ((html)) && [[ -f "$OUT/$name.ipynb" ]]; then
        jupyter nbconvert --to html --output-dir "$OUT" "$OUT/$name.ipynb" >>"$logfile" 2>&1 ||
            log "  $name: HTML export failed (see ${logfile#"$ROOT"/})"
    fi

    retries=""
    if ((attempt > 1)); then
        retries=", start-up retries: $((attempt - 1))"
    fi
    claim_count="$(printf '%s\n' "$report" | sed -n 's/^claims: //p' | tail -n 1)"
    claim_count="${claim_count:+, claims: $claim_count}"
    if ((ok)); then
        passed=$((passed + 1))
        if [[ "$mode" == record ]]; then
            cp "$OUT/$name.ipynb" "$nb"
            log "PASS $name (${exec_time}s$memory$retries$claim_count) -> recorded into ${nb#"$ROOT"/}"
        else
            log "PASS $name (${exec_time}s$memory$retries$claim_count)"
        fi
        printf '%s\n' "$report" | grep '^  not held at these settings' || true
    else
        failed=$((failed + 1))
        failed_names+=("$name")
        log "FAIL $name (${exec_time}s$memory$retries$claim_count): ${nb#"$ROOT"/}"
        log "$report"
    fi
done

log "Total time $(since "$suite_start")s.${failed_names[0]+ Failed: ${failed_names[*]}}"
log "notebooks: $passed passed, $failed failed"
((failed == 0))
