# shellcheck shell=bash disable=SC2034  # sourced: the variables are used by the sourcing scripts
# Shared settings for the scripts in this folder; sourced, never run on its own.
#
# Defines:
#   ROOT            repository root (found from this file's location, not from the current directory)
#   KERNEL_NAME     name of the project-local Jupyter kernel (notebook metadata: kernelspec.name)
#   KERNEL_DIR      where setup.sh installs it: build/jupyter/kernels/$KERNEL_NAME
#   PY              Python interpreter for helper scripts (Debian's /usr/bin/python3 when present)
#   RAPAIO_VERSION  the rapaio kernel's version: pom.xml's rapaio.version (the launcher module builds on it)
#   the Debian packages of scripts/debian-packages.sh (JDK_PACKAGES, JUPYTER_PACKAGES, DATASET_PACKAGE, ...)
# and exports the Jupyter variables that make Jupyter use the project-local kernel (JUPYTER_PATH comes
# first in Jupyter's search path) and keep its runtime files (connection files) inside build/ instead
# of ~/.local; isolate_jupyter() moves the rest of Jupyter's state there too.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

KERNEL_NAME=java
RAPAIO_VERSION="$(sed -n 's:.*<rapaio.version>\(.*\)</rapaio.version>.*:\1:p' "$ROOT/pom.xml")"
[[ -n "$RAPAIO_VERSION" ]] || { printf 'error: no <rapaio.version> in %s\n' "$ROOT/pom.xml" >&2; exit 1; }
# shellcheck source=scripts/debian-packages.sh
. "$ROOT/scripts/debian-packages.sh"
KERNEL_DIR="$ROOT/build/jupyter/kernels/$KERNEL_NAME"
KERNEL_JAR="rapaio-jupyter-kernel-$RAPAIO_VERSION.jar"
# The project's launcher of that kernel (module kernel-launcher), copied beside it into $KERNEL_DIR.
KERNEL_LAUNCHER_JAR=d2l-kernel-launcher.jar
KERNEL_LAUNCHER_CLASS=org.d2l.multigpu.kernel.KernelLauncher

# Copies the rapaio kernel jar from the local Maven repository (fetching it first when online) into $1;
# extra Maven arguments in the array MVN_EXTRA. Runs where there is no pom.xml, so that the goal does
# not run once per module.
fetch_kernel_jar() {
    (cd "$1" && mvn -q -B ${MVN_EXTRA[@]+"${MVN_EXTRA[@]}"} \
        org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
        -Dartifact="io.github.padreati:rapaio-jupyter-kernel:$RAPAIO_VERSION" \
        -DoutputDirectory="$1")
}

# Debian's Jupyter lives in /usr/bin/python3; a pyenv/venv python3 first on PATH may lack it.
if [[ -x /usr/bin/python3 ]]; then
    PY=/usr/bin/python3
else
    PY="$(command -v python3 || true)"
fi

case ":${JUPYTER_PATH:-}:" in
    ":$ROOT/build/jupyter:"*) ;; # already first (a script called by another)
    *) export JUPYTER_PATH="$ROOT/build/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}" ;;
esac
export JUPYTER_RUNTIME_DIR="$ROOT/build/jupyter/runtime"
# Non-interactive runs (setup, notebook runs) also keep Jupyter's and IPython's own state in build/jupyter
# and ignore the user's Jupyter configuration, for repeatable runs; serve.sh keeps the user's.
isolate_jupyter() {
    export JUPYTER_CONFIG_DIR="$ROOT/build/jupyter/config"
    export JUPYTER_DATA_DIR="$ROOT/build/jupyter/data"
    export IPYTHONDIR="$ROOT/build/jupyter/ipython"
}

# ipykernel's debugger prints a frozen-modules warning whenever kernelspecs are listed.
export PYDEVD_DISABLE_FILE_VALIDATION=1

# Whether to build without the bundled CPU natives (-Dgpu): an NVIDIA GPU that nvidia-smi lists, unless
# D2L_CPU_ONLY=1 or MVN_ARGS already says -Dgpu.
wants_gpu_build() {
    [[ "${D2L_CPU_ONLY:-}" != 1 && " ${MVN_ARGS:-} " != *" -Dgpu"* ]] &&
        command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'
}

log() { printf '%s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
