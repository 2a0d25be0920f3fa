#!/usr/bin/env bash
# Tries the Colab and Binder recipes on this machine, as far as one without internet allows: each in a
# container built with buildah from a local debian:bookworm, a lesson executed end to end through the
# kernel the recipe installs. For developers; not part of scripts/test.sh (about 15-25 minutes).
#
#   JJAVA_SRC=DIR IPC_PROXY_DIR=DIR scripts/try-colab-binder.sh [colab|binder|all] [LESSON.ipynb]
#
# Run as root after scripts/setup.sh (its Maven cache in ~/.m2 is what the containers build from).
# Default: all, notebooks/multiple-gpus.ipynb. Everything goes to build/try-colab-binder/ (logs, the
# executed lessons); the last lines say what ran.
#
# What stands in for what cannot be reached from here (no Colab, no mybinder.org, no PyPI, no GitHub):
#   * Colab's VM: Debian 12 with Python, IPython and Jupyter from Debian, git and curl, and no JDK and no
#     Maven (Colab's image has had no JDK at times; its Ubuntu Maven, 3.6.3, is too old either way);
#     the repository is copied to /content/d2l-multigpu, as the `git clone` of the line that each lesson's
#     first cell gives for Colab would; the rest of that line (bash .../binder/colab-setup.sh) runs in a
#     code cell on IPython, as the learner runs it.
#   * `pip install jjava==V` (both recipes): JJava built here from its source at the release's tag
#     (JJAVA_SRC: a git clone of github.com/dflib/jjava; V is JJAVA_VERSION in binder/colab-setup.sh),
#     its kernelspec installed where pip puts it (sys.prefix/share/jupyter/kernels/java).
#   * the ipc proxy gist's download: IPC_PROXY_DIR, a folder with ipc_proxy_kernel.py and
#     install_ipc_proxy_kernel.py (the gist's two files).
#   * Apache Maven from Maven Central: fetched here by Maven itself, given to colab-setup.sh as MAVEN_URL
#     (file://), still checked against its SHA-512.
#   * Colab's runtime switch to java: nbconvert runs the lesson with the kernel named java (the proxy)
#     over the ipc transport, as Colab does; before that the real kernel (java_tcp) is started over ipc
#     alone, which must fail: that is why the proxy is there.
#   * mybinder.org's image (repo2docker: Ubuntu 24.04 + conda environment.yml): Debian 12 with
#     openjdk-17, Maven 3.8.7 and Jupyter from Debian, a user jovyan, apt.txt read as repo2docker reads it;
#     binder/postBuild runs as jovyan with Maven's remote repository replaced by ~/.m2 served on 127.0.0.1
#     and the data download by a file:// URL; binder/start then starts nbconvert (JJava over tcp, as
#     JupyterLab on Binder) in cgroups of 1 CPU (CFS quota) and 2 GB, mybinder.org's limits.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
W="$ROOT/build/try-colab-binder"
what="${1:-all}"
LESSON="${2:-$ROOT/notebooks/multiple-gpus.ipynb}"
NAME="$(basename "$LESSON" .ipynb)"
IMAGE=docker.io/library/debian:bookworm
JJAVA_VERSION="$(sed -n 's/^JJAVA_VERSION=\([^ ]*\).*/\1/p' "$ROOT/binder/colab-setup.sh")"
MAVEN_VERSION="$(sed -n 's/^MAVEN_VERSION=\([^ ]*\).*/\1/p' "$ROOT/scripts/install-maven.sh")"
CGROUP_NAME=d2l-binder-sim
# shellcheck source=scripts/debian-packages.sh
. "$ROOT/scripts/debian-packages.sh"
log() { printf '%s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
case "$what" in colab | binder | all) ;; *) die "unknown step $what (colab, binder or all)" ;; esac
[[ $(id -u) -eq 0 ]] || die "run as root (buildah, cgroups)"
[[ -f "$LESSON" ]] || die "no such lesson: $LESSON"
[[ -d "${JJAVA_SRC:-}/.git" || -f "${JJAVA_SRC:-}/HEAD" ]] || die "JJAVA_SRC must be a git clone of github.com/dflib/jjava"
[[ -f "${IPC_PROXY_DIR:-}/ipc_proxy_kernel.py" && -f "$IPC_PROXY_DIR/install_ipc_proxy_kernel.py" ]] ||
    die "IPC_PROXY_DIR must hold the gist's ipc_proxy_kernel.py and install_ipc_proxy_kernel.py"
[[ -f "$ROOT/support-lib/target/d2l-multigpu.jar" ]] || die "run scripts/setup.sh first (it fills ~/.m2)"
mkdir -p "$W"
results=()
result() { results+=("$*"); log "--> $*"; }

# --- tools and inputs ----------------------------------------------------------------------------
if ! command -v buildah >/dev/null || ! command -v podman >/dev/null || ! command -v debootstrap >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq buildah podman debootstrap >/dev/null
fi
if [[ -z "$(buildah images -q "$IMAGE" 2>/dev/null)" ]]; then
    log "== debian:bookworm from Debian's packages (debootstrap)"
    rm -rf "$W/rootfs"
    debootstrap --variant=minbase bookworm "$W/rootfs" http://deb.debian.org/debian >"$W/debootstrap.log"
    tar -C "$W/rootfs" -c . | podman import - "$IMAGE" >/dev/null
    rm -rf "$W/rootfs"
fi

log "== JJava $JJAVA_VERSION from source (stands in for pip install jjava==$JJAVA_VERSION)"
tag="${JJAVA_VERSION/a/-a}" # PyPI's 1.0a7 is the release tagged 1.0-a7
if [[ ! -f "$W/jjava/kernel.json" ]]; then
    rm -rf "$W/jjava-src" "$W/jjava" && mkdir -p "$W/jjava-src"
    git -C "$JJAVA_SRC" archive "$tag" | tar -x -C "$W/jjava-src"
    (cd "$W/jjava-src" && mvn -B -q -DskipTests package) >"$W/jjava-build.log" 2>&1 ||
        die "JJava build failed: $W/jjava-build.log"
    unzip -q "$W"/jjava-src/jjava-distro/target/jjava-*-kernelspec.zip -d "$W/jjava"
fi
rm -rf "$W/proxy" && cp -r "$IPC_PROXY_DIR" "$W/proxy"
maven_tgz="apache-maven-$MAVEN_VERSION-bin.tar.gz"
if [[ ! -f "$W/$maven_tgz" ]]; then
    (cd "$W" && mvn -B -q org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
        -Dartifact="org.apache.maven:apache-maven:$MAVEN_VERSION:tar.gz:bin" -DoutputDirectory="$W")
fi
# the repository as a clone would give it: tracked and untracked files that git does not ignore
(cd "$ROOT" && git ls-files -co --exclude-standard -z | tar --null -T - -cf "$W/repo.tar")
rm -rf "$W/out" && mkdir -p "$W/out" && chmod 0777 "$W/out" # the Binder user writes there too
# What the learner runs first in Colab, on Python: the line of the lesson's first cell, in a code cell of its
# own, without its `git clone` (the copy above stands in for it: no GitHub here)
/usr/bin/python3 - "$LESSON" "$W/out/setup-cell.ipynb" <<'EOF'
import json, re, sys
nb = json.load(open(sys.argv[1], encoding="utf-8"))
first = next("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
line = next((l.strip() for l in first.splitlines() if l.strip().startswith("!git clone ")), None)
m = re.fullmatch(r"!git clone --depth 1 \S+ (/content/d2l-multigpu) && (bash \1/binder/colab-setup\.sh)", line or "")
if not m:
    sys.exit("%s: its first cell has no line !git clone ... /content/d2l-multigpu && bash .../binder/colab-setup.sh "
             "(scripts/lesson_links.py writes it)" % sys.argv[1])
cell = {"cell_type": "code", "execution_count": None, "id": "colab-line", "metadata": {}, "outputs": [],
        "source": ["!" + m.group(2)]}
out = {"cells": [cell], "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                    "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}
json.dump(out, open(sys.argv[2], "w", encoding="utf-8"), indent=1)
EOF

new_container() { # NAME PACKAGES...: a fresh container from debian:bookworm with Debian packages
    local name="$1"; shift
    buildah rm "$name" >/dev/null 2>&1 || true
    buildah from --pull=never --name "$name" "$IMAGE" >/dev/null
    buildah run --isolation chroot "$name" -- sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends $* >/dev/null"
}
NBCONVERT=(jupyter nbconvert --to notebook --execute --ExecutePreprocessor.timeout=1800
    --ExecutePreprocessor.shutdown_kernel=immediate)

# --- Colab ---------------------------------------------------------------------------------------
if [[ "$what" == colab || "$what" == all ]]; then
    log "== Colab: a VM with Python and Jupyter, no JDK, no Maven"
    C=d2l-colab-sim
    new_container "$C" python3 python3-ipykernel jupyter-client jupyter-nbconvert python3-nbclient python3-zmq \
        git curl ca-certificates procps
    buildah run --isolation chroot -v "$W:/sim" "$C" -- sh -c \
        'mkdir -p /content/d2l-multigpu && tar -xf /sim/repo.tar -C /content/d2l-multigpu'
    run_colab() { # as Colab's runtime: cwd /content, the host's Maven cache, the stand-ins in /sim
        buildah run --isolation chroot -v "$W:/sim" -v "$HOME/.m2:/root/.m2" --workingdir /content "$C" -- \
            env PYDEVD_DISABLE_FILE_VALIDATION=1 D2L_JJAVA_KERNELSPEC=/sim/jjava \
            D2L_IPC_PROXY_DIR=/sim/proxy MAVEN_URL="file:///sim/$maven_tgz" MVN_ARGS=-o "$@"
    }
    log "== Colab: the lesson's line in a code cell on Python (IPython), as the learner runs it first"
    run_colab "${NBCONVERT[@]}" --output-dir /sim/out --output setup-cell.out.ipynb /sim/out/setup-cell.ipynb \
        >"$W/colab-setup.log" 2>&1 || die "the Colab line's cell failed: $W/colab-setup.log"
    /usr/bin/python3 -c '
import json, sys
for o in json.load(open(sys.argv[1]))["cells"][0]["outputs"]:
    print("".join(o.get("text", "")) or o)' "$W/out/setup-cell.out.ipynb" | tee "$W/colab-setup-cell-output.txt" | tail -n 12
    if grep -q '^Done. Now: Runtime > Change runtime type' "$W/colab-setup-cell-output.txt"; then
        result "colab: the lesson's line under IPython ran binder/colab-setup.sh to its end"
    else
        die "binder/colab-setup.sh did not finish: $W/colab-setup-cell-output.txt"
    fi
    # the proxy (java) and the real kernel behind it (java_tcp), whose env must hold the class path
    run_colab sh -c 'jupyter kernelspec list; for k in java java_tcp; do echo "$k:"; cat "$(jupyter kernelspec list --json |
        python3 -c "import json,sys; print(json.load(sys.stdin)[\"kernelspecs\"][sys.argv[1]][\"resource_dir\"])" "$k")/kernel.json"; echo; done' \
        | tee "$W/colab-kernels.txt"
    if grep -q '"JJAVA_CLASSPATH": "/content/d2l-multigpu/spark-lib/target/d2l-spark.jar"' "$W/colab-kernels.txt"; then
        result "colab: java_tcp's kernelspec gives JJava the Spark jar as its class path"
    else
        die "no JJAVA_CLASSPATH of the Spark jar in the kernelspecs: $W/colab-kernels.txt"
    fi
    log "== Colab: the real kernel (java_tcp) over ipc alone: must not connect (why the proxy is there)"
    cp "$LESSON" "$W/out/$NAME.ipynb"
    if run_colab "${NBCONVERT[@]}" --KernelManager.transport=ipc --ExecutePreprocessor.kernel_name=java_tcp \
        --ExecutePreprocessor.startup_timeout=60 --output-dir /sim/out --output ipc-direct.ipynb \
        "/sim/out/$NAME.ipynb" >"$W/colab-ipc-direct.log" 2>&1; then
        result "colab: JJava over ipc WITHOUT the proxy answered (unexpected: see $W/colab-ipc-direct.log)"
    else
        result "colab: JJava over ipc without the proxy did not answer in 60 s ($(grep -m1 -oE "Kernel didn.t respond[^.]*|Timeout[^.]*" "$W/colab-ipc-direct.log" || echo "see colab-ipc-direct.log"))"
    fi
    log "== Colab: runtime switched to java: the whole lesson through the proxy over ipc, from /content"
    run_colab sh -c "cp /sim/out/$NAME.ipynb /content/ && DATASET_LIMIT=512 MAX_EPOCH=1 D2L_PROGRESS=false \
        ${NBCONVERT[*]} --KernelManager.transport=ipc --ExecutePreprocessor.kernel_name=java \
        --output-dir /sim/out --output $NAME.colab.ipynb /content/$NAME.ipynb" >"$W/colab-lesson.log" 2>&1 ||
        die "the lesson failed on the proxy kernel: $W/colab-lesson.log"
    if /usr/bin/python3 "$ROOT/scripts/check_outputs.py" "$W/out/$NAME.colab.ipynb" --source-dir "$ROOT/notebooks" \
        >"$W/colab-check.txt"; then
        result "colab: $NAME ran end to end on JJava behind the ipc proxy (smoke settings), outputs clean: $(tail -n1 "$W/colab-check.txt")"
    else
        cat "$W/colab-check.txt"; die "$NAME on Colab's kernel has errors"
    fi
fi

# --- Binder --------------------------------------------------------------------------------------
if [[ "$what" == binder || "$what" == all ]]; then
    log "== Binder: image with JDK 17, Maven and Jupyter (environment.yml's stand-in), user jovyan"
    B=d2l-binder-sim
    new_container "$B" $JDK_PACKAGES python3 python3-ipykernel jupyter-client jupyter-nbconvert \
        python3-nbclient curl ca-certificates procps
    apt_packages="$(sed 's/#.*//' "$ROOT/binder/apt.txt" | tr -s ' \n' ' ')"
    if [[ -n "${apt_packages// /}" ]]; then
        buildah run --isolation chroot "$B" -- sh -c "apt-get install -y -qq --no-install-recommends $apt_packages"
    fi
    # Maven Central's stand-in: the host's ~/.m2/repository served over HTTP on the loopback (the
    # container shares the host's network; ~/.m2 is root's, unreadable for jovyan through a mount)
    port=18931
    /usr/bin/python3 -m http.server --bind 127.0.0.1 --directory "$HOME/.m2/repository" "$port" \
        >"$W/m2-http.log" 2>&1 &
    m2_server=$!
    trap 'kill "$m2_server" 2>/dev/null || true' EXIT
    cat >"$W/m2-mirror.xml" <<EOF
<settings><mirrors><mirror><id>host-m2</id><mirrorOf>*</mirrorOf><url>http://127.0.0.1:$port/</url></mirror></mirrors></settings>
EOF
    buildah run --isolation chroot -v "$W:/sim" "$B" -- sh -c 'useradd -m -s /bin/bash jovyan &&
        jupyter kernelspec install --sys-prefix --name java /sim/jjava >/dev/null &&
        mkdir /home/jovyan/repo && tar -xf /sim/repo.tar -C /home/jovyan/repo && chown -R jovyan: /home/jovyan'
    log "== Binder: binder/postBuild as jovyan (Maven from an HTTP mirror of ~/.m2 on 127.0.0.1, data from file://)"
    start_s=$SECONDS
    buildah run --isolation chroot -v "$W:/sim" \
        -v "$DATASET_DIR:/sim/fm:ro" "$B" -- runuser -u jovyan -- env HOME=/home/jovyan \
        MVN_ARGS="-s /sim/m2-mirror.xml" FASHION_MNIST_URL=file:///sim/fm /home/jovyan/repo/binder/postBuild \
        >"$W/binder-postbuild.log" 2>&1 || die "postBuild failed: $W/binder-postbuild.log"
    sizes="$(buildah run --isolation chroot "$B" -- sh -c 'cd /home/jovyan
        if [ -e .m2 ]; then printf "~/.m2 left: %s" "$(du -sh .m2 | cut -f1)"; else printf "no ~/.m2 left"; fi
        du -sh repo/support-lib/target/lib repo/spark-lib/target/lib repo/build/data/fashion-mnist-official |
            while read -r size dir; do printf "; %s %s" "$dir" "$size"; done')"
    result "binder: postBuild built the jars in $((SECONDS - start_s)) s: $sizes"

    log "== Binder: binder/start, then the lesson on JJava in cgroups of 1 CPU and 2 GB"
    cpu_cg=/sys/fs/cgroup/cpu/$CGROUP_NAME
    mem_parent="/sys/fs/cgroup/memory$(sed -n 's/^[0-9]*:memory:\(.*\)$/\1/p' /proc/self/cgroup)"
    mem_cg="$mem_parent/$CGROUP_NAME"
    mkdir -p "$cpu_cg" "$mem_cg"
    echo 100000 >"$cpu_cg/cpu.cfs_period_us"
    echo 100000 >"$cpu_cg/cpu.cfs_quota_us"
    echo $((2 * 1024 * 1024 * 1024)) >"$mem_cg/memory.limit_in_bytes"
    cat >"$W/ThreadCheck.java" <<'EOF'
public class ThreadCheck {
    public static void main(String[] args) {
        org.d2l.multigpu.runtime.Djl.setup();
        ai.djl.engine.Engine.getInstance();
        System.out.println("cgroup CPU quota: " + org.d2l.multigpu.runtime.CpuQuota.cpus() + ", JVM processors: "
                + Runtime.getRuntime().availableProcessors() + ", host CPUs: " + args[0]
                + ", PyTorch intra-op threads: " + ai.djl.pytorch.jni.JniUtils.getNumThreads()
                + ", memory seen by the lessons: " + String.format("%.1f GB", org.d2l.multigpu.runtime.Memory.availableBytes() / 1e9));
    }
}
EOF
    in_binder_cgroups() { # runs buildah from a shell that first moves itself into the two cgroups
        bash -c 'echo $$ >"$1/cgroup.procs"; echo $$ >"$2/cgroup.procs"; shift 2; exec "$@"' _ "$cpu_cg" "$mem_cg" "$@"
    }
    in_binder_cgroups buildah run --isolation chroot -v "$W:/sim" "$B" -- runuser -u jovyan -- env HOME=/home/jovyan \
        PYDEVD_DISABLE_FILE_VALIDATION=1 D2L_PROGRESS=false bash -c "cd /home/jovyan/repo && binder/start bash -c \
        'echo JJAVA_JVM_OPTS=\$JJAVA_JVM_OPTS; echo JJAVA_CLASSPATH=\$JJAVA_CLASSPATH; echo FASHION_MNIST_DIR=\$FASHION_MNIST_DIR;
         java \$JJAVA_JVM_OPTS -cp \$JJAVA_CLASSPATH /sim/ThreadCheck.java \$(nproc) 2>/dev/null;
         ${NBCONVERT[*]} --output-dir /tmp/out --output $NAME.binder.ipynb notebooks/$NAME.ipynb &&
         cp /tmp/out/$NAME.binder.ipynb /sim/out/'" >"$W/binder-lesson.log" 2>&1 || {
        tail -n 20 "$W/binder-lesson.log"; die "the lesson failed under binder/start: $W/binder-lesson.log"; }
    grep -E '^(JJAVA_JVM_OPTS|JJAVA_CLASSPATH|FASHION_MNIST_DIR|cgroup CPU quota)' "$W/binder-lesson.log" || true
    result "binder: $(grep -m1 '^cgroup CPU quota' "$W/binder-lesson.log" || echo 'thread check printed nothing')"
    if /usr/bin/python3 "$ROOT/scripts/check_outputs.py" "$W/out/$NAME.binder.ipynb" --source-dir "$ROOT/notebooks" \
        >"$W/binder-check.txt"; then
        settings="$(/usr/bin/python3 -c '
import json, sys
for c in json.load(open(sys.argv[1]))["cells"]:
    for o in c.get("outputs", []):
        t = "".join(o.get("text", ""))
        if t.startswith("Settings of this run"):
            print(t.strip()); sys.exit()' "$W/out/$NAME.binder.ipynb")"
        result "binder: $NAME ran end to end at binder/start's defaults in 1 CPU / 2 GB, outputs clean: $(tail -n1 "$W/binder-check.txt"); first output: $settings"
    else
        cat "$W/binder-check.txt"; die "$NAME under binder/start has errors"
    fi
    rmdir "$cpu_cg" "$mem_cg" 2>/dev/null || true
fi

log ""
log "Summary (details in ${W#"$ROOT"/}/):"
printf '  %s\n' "${results[@]}"
