#!/usr/bin/env bash
# Runs unit tests N times in a row and counts the runs that passed, so that a rare fault shows.
#
#   scripts/repeat-tests.sh [N] [tests]
#
# N (default 10): how many runs. tests (default: the trainer's numeric tests, support-lib's packages parallel,
# precision, collective and runtime): what to run, as surefire's -Dtest takes it (e.g. 'ParameterAveragingTest',
# or 'all' for every module's unit tests, as the test command runs them). Each run's failing tests are listed;
# the last line says how many runs passed. Builds nothing else and starts no notebook; run scripts/setup.sh first.
# MVN_ARGS are passed to Maven (e.g. "-o"). Exit status 0 only when every run passed.
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
n=${1:-10}
tests=${2:-'org/d2l/multigpu/parallel/**/*Test,org/d2l/multigpu/precision/*Test,org/d2l/multigpu/collective/*Test,org/d2l/multigpu/runtime/*Test'}
[[ $n =~ ^[1-9][0-9]*$ ]] || die "N must be a positive number of runs, not '$n'"
read -ra MVN_EXTRA <<<"${MVN_ARGS:-}"
if [[ $tests == all ]]; then
    mvn_args=(test)
else
    mvn_args=(-pl support-lib test "-Dtest=$tests" -Dsurefire.failIfNoSpecifiedTests=false)
fi
cd "$ROOT"
log "==> where this runs"
java -cp support-lib/target/d2l-multigpu.jar org.d2l.multigpu.runtime.Platform 2>/dev/null ||
    log "(support-lib/target/d2l-multigpu.jar not built yet: scripts/setup.sh builds it)"
passed=0
logdir="$ROOT/build/repeat-tests"
mkdir -p "$logdir"
for ((i = 1; i <= n; i++)); do
    start=$SECONDS
    if mvn -B ${MVN_EXTRA[@]+"${MVN_EXTRA[@]}"} "${mvn_args[@]}" >"$logdir/run-$i.log" 2>&1; then
        passed=$((passed + 1))
        log "run $i of $n: passed ($((SECONDS - start)) s)"
    else
        log "run $i of $n: FAILED ($((SECONDS - start)) s, log: build/repeat-tests/run-$i.log)"
        grep -E '^\[ERROR\] +[A-Za-z].*(Test|Tests)\.[A-Za-z]|Tests run:.*FAILURE|^\[ERROR\] Failures|^\[ERROR\] Errors' \
            "$logdir/run-$i.log" | head -n 12 | sed 's/^/    /' || true
    fi
done
log "$passed of $n runs passed"
((passed == n))
