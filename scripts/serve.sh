#!/usr/bin/env bash
# Starts Jupyter Notebook on notebooks/ with the project-local Java kernel.
#
#   scripts/serve.sh [extra jupyter notebook options]
#   PORT=9999 scripts/serve.sh
#   scripts/serve.sh --ip=0.0.0.0      # in a container: listen on all interfaces, not just localhost
#
# Runs scripts/setup.sh first (idempotent: builds the support jar, installs the kernel), then
# `jupyter notebook --no-browser` on port $PORT (default 8888; fails if that port is taken). Jupyter
# prints the URL with its access token. Run as root (containers), it adds --allow-root, which Jupyter
# demands then. The kernel is found through JUPYTER_PATH=build/jupyter; the notebook code sees your
# environment (e.g. DATASET_LIMIT, MAX_EPOCH) as it is.
# The kernel is rapaio 3.0.1 started by the project's launcher (kernel-launcher/), which removes rapaio's
# start-up race (a kernel stuck at "Kernel starting, please wait...") and makes Kernel > Interrupt stop
# training at the next step (README, "Stopping a run").
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

"$ROOT/scripts/setup.sh"

PORT="${PORT:-8888}"
extra=()
if [[ $(id -u) -eq 0 ]]; then
    extra+=(--allow-root)
fi
log ""
log "Starting Jupyter Notebook on port $PORT (kernel '$KERNEL_NAME'); open the http://127.0.0.1:$PORT/?token=... URL printed below."
exec jupyter notebook --no-browser --port="$PORT" --port-retries=0 \
    --notebook-dir="$ROOT/notebooks" ${extra[@]+"${extra[@]}"} "$@"
