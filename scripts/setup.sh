#!/usr/bin/env bash
# Prepares everything the notebooks need; safe to run any number of times.
#
#   scripts/setup.sh
#
# 1. Jupyter, the Fashion-MNIST files, a JDK >= 17 and Maven (Debian packages): installed with apt-get when
#    run as root, otherwise the exact `sudo apt-get install ...` command is printed.
# 2. Checks the JDK (JAVA_HOME/bin/java, else java on PATH) and Maven >= 3.8; as root an older Maven is
#    replaced by Apache Maven from Maven Central (scripts/install-maven.sh; Ubuntu 22.04 ships 3.6.3).
# 3. Builds the support jar support-lib/target/d2l-multigpu.jar (+ target/lib, which its manifest
#    Class-Path lists) and the Spark jar spark-lib/target/d2l-spark.jar (Spark + the support jar, same way),
#    unless the last build's inputs are unchanged (scripts/build-inputs.sh; then it says so in one line).
# 4. Installs the Java kernel (rapaio-jupyter-kernel from Maven Central) as a project-local kernelspec
#    build/jupyter/kernels/java (found through JUPYTER_PATH=build/jupyter; nothing goes to ~/.local),
#    started by the project's launcher (kernel-launcher/target/d2l-kernel-launcher.jar), which fixes
#    rapaio's start-up race and makes Kernel > Interrupt stop only the running cell; its class path is the
#    Spark jar (RJK_CLASSPATH), which brings everything the lessons import.
#
# Environment:
#   MVN_ARGS          extra Maven arguments, e.g. "-o" (offline) or "-Dgpu" (no bundled CPU natives;
#                     added by itself when nvidia-smi lists a GPU, unless D2L_CPU_ONLY=1)
#   KERNEL_JAVA_OPTS  extra JVM options for the kernel process, e.g. "-Xmx8g"
#   JAVA_HOME         JDK to build with and to run the kernel on (default: java on PATH)
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
isolate_jupyter

read -ra DEBIAN_JUPYTER_PACKAGES <<<"$JUPYTER_PACKAGES" # scripts/debian-packages.sh, through common.sh
DATASET_FILE="$DATASET_DIR/train-images-idx3-ubyte.gz"
read -ra MVN_EXTRA <<<"${MVN_ARGS:-}"

# --- 1. What is missing: Jupyter, the data, a JDK, Maven -----------------------------------------
jupyter_ok() {
    command -v jupyter >/dev/null 2>&1 &&
        jupyter nbconvert --version >/dev/null 2>&1 &&
        jupyter notebook --version >/dev/null 2>&1
}
java_cmd() {
    if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then echo "$JAVA_HOME/bin/java"; else command -v java || true; fi
}
java_major() {
    "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | sed 's/^1\.//; s/\..*//'
}
java_ok() { # a JDK >= 17 with jshell, which the kernels need
    local j
    j="$(java_cmd)"
    [[ -n "$j" && "$(java_major "$j")" -ge 17 ]] 2>/dev/null && "$j" --list-modules 2>/dev/null | grep -q '^jdk\.jshell@'
}
mvn_version() { mvn -B --version 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g' | sed -n 's/^Apache Maven \([0-9][0-9.]*\).*/\1/p'; }
mvn_new_enough() { [[ -n "$1" && "$(printf '%s\n' 3.8 "$1" | sort -V | head -n1)" == 3.8 ]]; } # $1: a version

missing=()
jupyter_ready=1 # each check starts Python or a JVM: checked once, and again only after an installation
jupyter_ok || { jupyter_ready=0; missing+=("${DEBIAN_JUPYTER_PACKAGES[@]}"); }
[[ -f "$DATASET_FILE" ]] || missing+=("$DATASET_PACKAGE")
java_ok || missing+=("$JDK_PACKAGE")
command -v mvn >/dev/null 2>&1 || missing+=(maven)
root_apt=0
[[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1 && root_apt=1

if ((${#missing[@]})); then
    if ((root_apt)); then
        log "Installing Debian packages: ${missing[*]}"
        apt-get update
        DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
        hash -r
    elif ! jupyter_ok || ! java_ok || ! command -v mvn >/dev/null 2>&1; then
        die "missing: ${missing[*]}. Install them with:
    sudo apt-get install ${missing[*]}
(Debian/Ubuntu; elsewhere: a JDK >= 17, Maven >= 3.8 and Jupyter Notebook with nbconvert)"
    else
        log "warning: Fashion-MNIST files not found ($DATASET_FILE). Install them with:"
        log "    sudo apt-get install $DATASET_PACKAGE"
    fi
fi
((jupyter_ready)) || jupyter_ok || die "jupyter (notebook, nbconvert) still not usable after installation"

# --- 2. JDK and Maven ----------------------------------------------------------------------------
JAVA="$(java_cmd)"
[[ -n "$JAVA" ]] || die "no java found. Install a JDK >= 17, e.g.: sudo apt-get install $JDK_PACKAGE"
java_version="$(java_major "$JAVA")"
if [[ -z "$java_version" || "$java_version" -lt 17 ]]; then
    die "$JAVA is Java ${java_version:-?}; a JDK >= 17 is needed, e.g.: sudo apt-get install $JDK_PACKAGE (or set JAVA_HOME)"
fi
"$JAVA" --list-modules 2>/dev/null | grep -q '^jdk\.jshell@' ||
    die "$JAVA is a JRE without jdk.jshell; the kernel needs a full JDK (e.g. $JDK_PACKAGE)"

mvn_version="$(mvn_version)"
if ! mvn_new_enough "$mvn_version"; then
    if ((root_apt)); then # an older packaged Maven (Ubuntu 22.04: 3.6.3): Apache Maven from Maven Central
        log "Maven $mvn_version found; the build needs 3.8 or newer."
        "$ROOT/scripts/install-maven.sh"
        hash -r
        mvn_version="$(mvn_version)"
    fi
    mvn_new_enough "$mvn_version" || die "Maven $mvn_version found; Maven >= 3.8 is needed: run this script as root (it installs it), or
    sudo $ROOT/scripts/install-maven.sh"
fi

# --- 3. Support jar ------------------------------------------------------------------------------
# An NVIDIA GPU: build without the bundled CPU natives, so that DJL fetches the CUDA ones at first
# start (needs internet once). D2L_CPU_ONLY=1 keeps the CPU build.
if wants_gpu_build; then
    log "NVIDIA GPU found: building with -Dgpu (DJL downloads the CUDA natives at first start; D2L_CPU_ONLY=1 to keep CPU)."
    MVN_EXTRA+=(-Dgpu)
    MVN_ARGS="${MVN_ARGS:-} -Dgpu"
fi
SUPPORT_JAR="$ROOT/support-lib/target/d2l-multigpu.jar"
SPARK_JAR="$ROOT/spark-lib/target/d2l-spark.jar"
LAUNCHER_JAR="$ROOT/kernel-launcher/target/$KERNEL_LAUNCHER_JAR"
# The last build's inputs (scripts/build-inputs.sh: the sources, pom.xml files, -D/-P Maven arguments and
# JDK): when they are unchanged and the jars are there, Maven has nothing to do and is not started.
BUILD_STAMP="$ROOT/build/setup/jars.sha256"
inputs="$(MVN_ARGS="${MVN_ARGS:-}" JAVA_HOME="${JAVA_HOME:-}" "$ROOT/scripts/build-inputs.sh")"
if [[ -f "$BUILD_STAMP" && "$(cat "$BUILD_STAMP")" == "$inputs" && -f "$SUPPORT_JAR" && -f "$SPARK_JAR" &&
    -f "$LAUNCHER_JAR" && -d "$ROOT/spark-lib/target/lib" ]]; then
    log "The jars are up to date with their sources (scripts/build-inputs.sh): no build."
else
    rm -f "$BUILD_STAMP"
    log "Building the support and Spark jars (mvn -q -B -DskipTests ${MVN_ARGS:-} package) ..."
    (cd "$ROOT" && mvn -q -B -DskipTests ${MVN_EXTRA[@]+"${MVN_EXTRA[@]}"} package)
    [[ -f "$SUPPORT_JAR" ]] || die "build finished but $SUPPORT_JAR is missing"
    [[ -f "$SPARK_JAR" ]] || die "build finished but $SPARK_JAR is missing"
    [[ -f "$LAUNCHER_JAR" ]] || die "build finished but $LAUNCHER_JAR is missing"
    mkdir -p "$(dirname "$BUILD_STAMP")"
    printf '%s\n' "$inputs" >"$BUILD_STAMP"
fi

# --- 4. Project-local Java kernel ----------------------------------------------------------------
mkdir -p "$KERNEL_DIR" "$JUPYTER_RUNTIME_DIR"
find "$KERNEL_DIR" -maxdepth 1 -name 'rapaio-jupyter-kernel-*.jar' ! -name "$KERNEL_JAR" -delete
if [[ ! -f "$KERNEL_DIR/$KERNEL_JAR" ]]; then
    log "Fetching io.github.padreati:rapaio-jupyter-kernel:$RAPAIO_VERSION ..."
    fetch_kernel_jar "$KERNEL_DIR"
fi

cp "$LAUNCHER_JAR" "$KERNEL_DIR/$KERNEL_LAUNCHER_JAR"

# The kernel runs notebook code in its own JVM (JShell with local execution), so these JVM options
# apply to the notebook code too: native access for DJL/JNA (silences JDK 22+ warnings; accepted by
# 17), and the same thread stack size as the unit tests.
read -ra kernel_java_opts <<<"--enable-native-access=ALL-UNNAMED -Xss4m ${KERNEL_JAVA_OPTS:-}"
JAVA="$JAVA" KERNEL_DIR="$KERNEL_DIR" KERNEL_JAR="$KERNEL_JAR" RAPAIO_VERSION="$RAPAIO_VERSION" LESSON_CLASSPATH="$SPARK_JAR" \
    KERNEL_LAUNCHER_JAR="$KERNEL_LAUNCHER_JAR" KERNEL_LAUNCHER_CLASS="$KERNEL_LAUNCHER_CLASS" \
    "$PY" - "${kernel_java_opts[@]}" <<'EOF'
import json, os, sys
spec = {
    # The launcher runs rapaio's kernel (instead of `-jar rapaio-jupyter-kernel.jar`) without its start-up
    # race and with an Interrupt that stops only the running cell.
    "argv": [os.environ["JAVA"], *sys.argv[1:], "-cp",
             "{resource_dir}/%s:{resource_dir}/%s" % (os.environ["KERNEL_LAUNCHER_JAR"], os.environ["KERNEL_JAR"]),
             os.environ["KERNEL_LAUNCHER_CLASS"], "{connection_file}"],
    # The lessons' kernelspec metadata says "Java": the same name here, so that opening one changes nothing.
    "display_name": "Java",
    "language": "java",
    "interrupt_mode": "message",
    "env": {
        # The Spark jar: its manifest Class-Path brings the support jar, DJL, Spark and every library the
        # lessons use, in versions that agree with Spark's, so no lesson needs a %jars cell.
        "RJK_CLASSPATH": os.environ["LESSON_CLASSPATH"],
        "RJK_COMPILER_OPTIONS": "",
        "RJK_INIT_SCRIPT": "",
        "RJK_TIMEOUT_MILLIS": "-1",
        "RJK_MIMA_CACHE": "mima_cache",
    },
}
path = os.path.join(os.environ["KERNEL_DIR"], "kernel.json")
with open(path + ".tmp", "w") as f:
    json.dump(spec, f, indent=2)
    f.write("\n")
os.replace(path + ".tmp", path)
EOF

jupyter kernelspec list --json 2>/dev/null |
    "$PY" -c 'import json, os, sys; sys.exit(json.load(sys.stdin)["kernelspecs"].get(sys.argv[1], {}).get("resource_dir") != sys.argv[2])' \
        "$KERNEL_NAME" "$KERNEL_DIR" ||
    die "Jupyter does not see the kernel in $KERNEL_DIR (JUPYTER_PATH=$JUPYTER_PATH)"

log "Setup done:
  java         $JAVA (Java $java_version)
  maven        $mvn_version
  support jar  ${SUPPORT_JAR#"$ROOT"/} ($(find "$ROOT/support-lib/target/lib" -name '*.jar' | wc -l) jars in target/lib)
  spark jar    ${SPARK_JAR#"$ROOT"/} ($(find "$ROOT/spark-lib/target/lib" -name '*.jar' | wc -l) jars in target/lib)
  kernel       '$KERNEL_NAME' ($KERNEL_JAR, started by $KERNEL_LAUNCHER_JAR) in ${KERNEL_DIR#"$ROOT"/}; use JUPYTER_PATH=$ROOT/build/jupyter
  data         $([[ -f "$DATASET_FILE" ]] && dirname "$DATASET_FILE" || echo "Fashion-MNIST files missing")"
