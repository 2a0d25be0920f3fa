#!/usr/bin/env bash
# Google Colab: installs what the lessons need into the running Colab VM. Run it from the first cell
# of a *Python* Colab notebook, then switch the runtime to the Java kernel (see README, "Colab and
# Binder"):
#
#   !git clone --depth 1 https://github.com/<owner>/<this-repo>.git /content/d2l-multigpu
#   !bash /content/d2l-multigpu/binder/colab-setup.sh
#
# 1. A JDK 17 and Maven from Ubuntu's packages (installed explicitly: the JDK in Colab's image has
#    changed from none to 17 to 21 over time; any JDK >= 17 runs the lessons).
# 2. The JJava kernel from PyPI (`pip install jjava`, registers a kernel named "java").
# 3. SpencerPark's ipc proxy kernel in front of it: Colab talks to kernels over the ipc transport,
#    which JeroMQ-based Java kernels do not support (they hang at "Connecting"). The proxy renames the
#    real kernel to "java_tcp" and installs a proxy named "java" that forwards ipc to tcp.
# 4. The Fashion-MNIST files (Ubuntu package dataset-fashion-mnist, else the official files).
# 5. The support jar (mvn package), reachable as ../support-lib/target/d2l-multigpu.jar from Colab's
#    working folder /content, the path the lessons' first cell uses.
# Not tested on Colab (the project's machines cannot reach it); each step says what it does.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# A fixed revision of https://gist.github.com/SpencerPark/e2732061ad19c1afa4a33a58cb8f18a9
PROXY_URL=https://gist.github.com/SpencerPark/e2732061ad19c1afa4a33a58cb8f18a9/archive/b6cff2bf09b6832344e576ea1e4731f0fb3df10c.tar.gz
DATA=/usr/share/datasets/fashion-mnist
DATA_URL=https://raw.githubusercontent.com/zalandoresearch/fashion-mnist/master/data/fashion

echo "== 1. JDK 17 and Maven"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless maven >/dev/null
java_major="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p')"
if [[ "${java_major%%.*}" -lt 17 ]]; then
    update-alternatives --set java "$(update-alternatives --list java | grep -m1 'java-17')"
fi
java -version 2>&1 | head -n 1

echo "== 2. JJava kernel"
pip install -q jjava
jupyter kernelspec list

echo "== 3. ipc proxy kernel in front of it"
tmp="$(mktemp -d)"
curl -fsSL "$PROXY_URL" | tar xz --strip-components=1 -C "$tmp"
(cd "$tmp" && python3 install_ipc_proxy_kernel.py --kernel=java --implementation=ipc_proxy_kernel.py)
jupyter kernelspec list

echo "== 4. Fashion-MNIST"
if [[ ! -f "$DATA/train-images-idx3-ubyte.gz" ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dataset-fashion-mnist >/dev/null 2>&1 || {
        mkdir -p "$DATA"
        for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
            curl -fsSL -o "$DATA/$f.gz" "$DATA_URL/$f.gz"
        done
    }
fi
ls "$DATA"

echo "== 5. Support jar"
(cd "$REPO" && mvn -q -B -DskipTests package)
# The lessons load ../support-lib/target/d2l-multigpu.jar relative to the kernel's folder, /content.
ln -sfn "$REPO/support-lib" /support-lib
ls -l /support-lib/target/d2l-multigpu.jar
echo "Done. Now: Runtime > Change runtime type > java, then open a lesson from $REPO/notebooks."
