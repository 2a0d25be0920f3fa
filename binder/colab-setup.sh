#!/usr/bin/env bash
# Google Colab: installs what the lessons need into the running Colab VM (as root, with internet). The
# learner opens a lesson in Colab, inserts a code cell at its top and runs there, under Colab's Python
# runtime, the one line that each lesson's first cell shows (made by scripts/lesson_links.py):
#   !git clone --depth 1 https://github.com/<owner>/<name> /content/d2l-multigpu && bash /content/d2l-multigpu/binder/colab-setup.sh
# then switches the runtime to Java (Runtime > Change runtime type > java), deletes that cell and runs
# the lesson. Safe to run again: every step keeps what an earlier run did.
#
# 1. A JDK >= 17 as `java` (Colab's image has shipped none, then 17, then 21; else Ubuntu's
#    openjdk-17-jdk-headless: the packages are named in scripts/debian-packages.sh).
# 2. Maven >= 3.8 (Ubuntu 22.04's package is 3.6.3): Apache Maven from Maven Central, checked against its
#    SHA-512, in /opt (scripts/install-maven.sh).
# 3. The JJava kernel $JJAVA_VERSION (pip; registers the kernel "java").
# 4. SpencerPark's ipc proxy kernel in front of it: Colab talks to kernels over the ipc transport, which
#    JeroMQ-based Java kernels do not support (they hang at "Connecting"); the real kernel becomes
#    "java_tcp" and a proxy named "java" forwards ipc to tcp. The real kernel's kernelspec (java_tcp's
#    once the proxy is in front) gets the lessons' JVM options and class path in its env, which the
#    proxy's jupyter_client applies when it starts java_tcp: JJAVA_CLASSPATH is the Spark jar, whose
#    manifest Class-Path brings the support jar, DJL, Spark and every library the lessons import, so
#    that no lesson loads a jar itself.
# 5. Fashion-MNIST: Ubuntu's dataset-fashion-mnist, else the official files (binder/fetch-fashion-mnist.sh,
#    content checked) in the same folder.
# 6. The jars: mvn package, with -Dgpu on a GPU runtime (no bundled CPU natives: DJL downloads the CUDA
#    natives that match the driver at the engine's first start; D2L_CPU_ONLY=1 keeps the CPU build).
#
# Environment (for scripts/try-colab-binder.sh, which runs this in a container without internet):
#   D2L_JJAVA_KERNELSPEC  a JJava kernelspec folder (kernel.json and jars) to install instead of pip's
#   D2L_IPC_PROXY_DIR     a folder with the gist's ipc_proxy_kernel.py and install_ipc_proxy_kernel.py
#   MAVEN_URL             where to take Apache Maven's tar.gz from (still checked against the SHA-512)
#   FASHION_MNIST_URL     see binder/fetch-fashion-mnist.sh;  MVN_ARGS  extra Maven arguments (e.g. -o)
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/debian-packages.sh
. "$REPO/scripts/debian-packages.sh"
JJAVA_VERSION=1.0a7 # the same in environment.yml (Binder); scripts/test_colab_binder.py checks it
# A fixed revision of https://gist.github.com/SpencerPark/e2732061ad19c1afa4a33a58cb8f18a9
PROXY_URL=https://gist.github.com/SpencerPark/e2732061ad19c1afa4a33a58cb8f18a9/archive/b6cff2bf09b6832344e576ea1e4731f0fb3df10c.tar.gz
# JVM options of the kernel, as scripts/setup.sh gives the rapaio kernel (JJava's launcher reads JJAVA_JVM_OPTS).
KERNEL_JVM_OPTS="-Xss4m --enable-native-access=ALL-UNNAMED"
# The kernel's class path (JJava reads JJAVA_CLASSPATH at start), as scripts/setup.sh gives the rapaio kernel.
KERNEL_CLASSPATH="$REPO/spark-lib/target/d2l-spark.jar"
DATA="$DATASET_DIR"
read -ra MVN_EXTRA <<<"${MVN_ARGS:-}"
export DEBIAN_FRONTEND=noninteractive
PY="$(command -v python3)"

kernel_dir() { jupyter kernelspec list --json | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["kernelspecs"].get(sys.argv[1], {}).get("resource_dir", ""))' "$1"; }
# kernel_env DIR: the lessons' JVM options and class path into the env of the kernelspec in DIR
kernel_env() {
    "$PY" - "$1/kernel.json" "$KERNEL_JVM_OPTS" "$KERNEL_CLASSPATH" <<'PYEOF'
import json, sys
path, opts, classpath = sys.argv[1:]
with open(path) as f:
    spec = json.load(f)
spec.setdefault("env", {}).update(JJAVA_JVM_OPTS=opts, JJAVA_CLASSPATH=classpath)
with open(path, "w") as f:
    json.dump(spec, f, indent=2)
PYEOF
}
# Sourced (scripts/test_colab_binder.py tries kernel_env on a kernelspec of its own): definitions only.
# (`return` outside a function succeeds only in a sourced file.)
if (return 0 2>/dev/null); then return 0; fi

apt_updated=0
apt_install() {
    if ((apt_updated == 0)); then apt-get update -qq; apt_updated=1; fi
    apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
java_major() {
    "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | cut -d. -f1
}
version_at_least() { [[ "$(printf '%s\n' "$2" "$1" | sort -V | head -n1)" == "$2" ]]; }

echo "== 1. JDK 17 or newer"
java_ok() { command -v java >/dev/null && [[ "$(java_major java)" -ge 17 ]] && command -v jshell >/dev/null; }
if ! java_ok; then
    apt_install "$JDK_PACKAGE"
    jdk17="$(update-alternatives --list java | grep -m1 'java-17' || true)"
    [[ -n "$jdk17" ]] && update-alternatives --set java "$jdk17" >/dev/null
    hash -r
fi
java_ok || { echo "error: no JDK >= 17 with jshell after installing $JDK_PACKAGE" >&2; exit 1; }
java -version 2>&1 | head -n 1

echo "== 2. Maven 3.8 or newer"
mvn_version() { mvn -B --version 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g' | sed -n 's/^Apache Maven \([0-9][0-9.]*\).*/\1/p'; }
have="$(command -v mvn >/dev/null && mvn_version || true)"
if [[ -z "$have" ]] || ! version_at_least "$have" 3.8; then
    echo "Maven ${have:-missing}: 3.8 or newer is needed"
    bash "$REPO/scripts/install-maven.sh"
    hash -r
fi
version_at_least "$(mvn_version)" 3.8 || { echo "error: Maven $(mvn_version) is on PATH, 3.8 or newer is needed" >&2; exit 1; }
echo "Apache Maven $(mvn_version)"

echo "== 3. JJava kernel $JJAVA_VERSION"
if [[ -z "$(kernel_dir java_tcp)" ]]; then # not yet behind the proxy
    if [[ -n "${D2L_JJAVA_KERNELSPEC:-}" ]]; then
        jupyter kernelspec install --sys-prefix --replace --name java "$D2L_JJAVA_KERNELSPEC" >/dev/null
    else
        pip install -q "jjava==$JJAVA_VERSION"
    fi
    [[ -n "$(kernel_dir java)" ]] || { echo "error: no kernel named java after installing JJava" >&2; exit 1; }
fi

echo "== 4. ipc proxy kernel in front of it"
if [[ -z "$(kernel_dir java_tcp)" ]]; then
    proxy="${D2L_IPC_PROXY_DIR:-}"
    if [[ -z "$proxy" ]]; then
        proxy="$(mktemp -d)"
        curl -fsSL --retry 3 "$PROXY_URL" | tar xz --strip-components=1 -C "$proxy"
    fi
    (cd "$proxy" && "$PY" install_ipc_proxy_kernel.py --kernel=java --implementation=ipc_proxy_kernel.py)
fi
real="$(kernel_dir java_tcp)"
[[ -n "$real" ]] || { echo "error: the ipc proxy did not install: no kernel named java_tcp" >&2; exit 1; }
# into java_tcp's kernelspec, where the proxy's installer moved the real kernel (the proxy starts it with this env)
kernel_env "$real"
jupyter kernelspec list
echo "java_tcp's env: $("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["env"])' "$real/kernel.json")"

echo "== 5. Fashion-MNIST"
if [[ ! -f "$DATA/train-images-idx3-ubyte.gz" ]]; then
    apt_install "$DATASET_PACKAGE" 2>/dev/null || {
        echo "$DATASET_PACKAGE is not in this image's apt sources: fetching the official files"
        "$REPO/binder/fetch-fashion-mnist.sh" "$DATA"
    }
fi
ls "$DATA"

echo "== 6. The jars"
if [[ "${D2L_CPU_ONLY:-}" != 1 ]] && command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    echo "GPU runtime: building with -Dgpu (DJL downloads the CUDA natives at the engine's first start)"
    MVN_EXTRA+=(-Dgpu)
fi
(cd "$REPO" && mvn -B -q -Dmaven.test.skip=true ${MVN_EXTRA[@]+"${MVN_EXTRA[@]}"} package)
ls -l "$REPO/support-lib/target/d2l-multigpu.jar" "$KERNEL_CLASSPATH"
echo
echo "Done. Now: Runtime > Change runtime type > Runtime type: java > Save, then delete the cell that ran"
echo "this and Runtime > Run all."
