#!/usr/bin/env bash
# The project's test command: setup, unit tests, then every notebook in smoke settings.
#
#   scripts/test.sh [run-notebooks.sh options and notebooks]
#
# 1. scripts/setup.sh                (Jupyter, JDK/Maven checks, support jar, kernel)
# 2. mvn -B $MVN_ARGS test           (unit tests of support-lib, output shown)
# 3. scripts/test_check_outputs.py   (the output checker: errors, claims in smoke and record mode)
# 4. scripts/test_kernel_interrupt.py (a real kernel: training interrupted twice, the next cell runs; ~30 s)
# 5. scripts/run-notebooks.sh "$@"   (smoke: DATASET_LIMIT=512, MAX_EPOCH=1 unless set)
# Stops at the first step that fails; exit status non-zero on any failure.
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
read -ra MVN_EXTRA <<<"${MVN_ARGS:-}"

log "==> setup"
"$ROOT/scripts/setup.sh"

log "==> unit tests: mvn -B ${MVN_ARGS:-} test"
(cd "$ROOT" && mvn -B ${MVN_EXTRA[@]+"${MVN_EXTRA[@]}"} test)

log "==> output checker tests"
"$PY" "$ROOT/scripts/test_check_outputs.py"

log "==> kernel interrupt test"
"$PY" "$ROOT/scripts/test_kernel_interrupt.py"

log "==> notebooks"
"$ROOT/scripts/run-notebooks.sh" "$@"
