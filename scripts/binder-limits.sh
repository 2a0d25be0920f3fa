#!/usr/bin/env bash
# Runs lessons as a Binder session would: in 2 GB of memory and one CPU, on the JJava kernel started
# through binder/start, at Binder's defaults (DATASET_LIMIT=3000, MAX_EPOCH=3).
#
#   JJAVA_KERNELSPEC=DIR scripts/binder-limits.sh [NOTEBOOK.ipynb ...]
#
# DIR holds an unpacked JJava kernelspec (kernel.json, jjava.jar, jjava-launcher.jar). JJava is not on
# Maven Central: build it from its source (github.com/dflib/jjava: `mvn -q -B -DskipTests package`, then
# unzip jjava-distro/target/*kernelspec.zip into DIR).
# Needs root and cgroup v1 (/sys/fs/cgroup/memory and /sys/fs/cgroup/cpu). The script makes a cgroup
# with the limits, moves itself into it, and shows the lessons that cgroup's limit where they look for
# it (a bind mount in a mount namespace of its own, as in a container). Then it runs
# scripts/run-notebooks.sh --binder, which prints each kernel's peak resident memory and fails a lesson
# over 1536 MB (Jupyter needs the rest of the 2 GB), and last the cgroup's peak and how often it hit
# its limit. Results in build/notebooks-binder/.
#
# Environment: BINDER_MEMORY (default 2G), BINDER_CPUS (default 1), JJAVA_KERNELSPEC (required).
# Run scripts/setup.sh first (the jars).
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[[ $(id -u) -eq 0 ]] || die "the cgroup limits need root: sudo $0 $*"
mem_root=/sys/fs/cgroup/memory
cpu_root=/sys/fs/cgroup/cpu
[[ -f "$mem_root/memory.limit_in_bytes" && -f "$cpu_root/cpu.cfs_quota_us" ]] ||
    die "no cgroup v1 memory and cpu controllers under /sys/fs/cgroup: this script needs cgroup v1"
spec="${JJAVA_KERNELSPEC:-}"
[[ -n "$spec" && -f "$spec/jjava.jar" && -f "$spec/jjava-launcher.jar" ]] ||
    die "set JJAVA_KERNELSPEC to an unpacked JJava kernelspec (jjava.jar, jjava-launcher.jar); see the top of $0"
[[ -f "$ROOT/spark-lib/target/d2l-spark.jar" ]] || die "the jars are missing: run scripts/setup.sh first"

# The JJava kernel, named jjava beside the project's own (run-notebooks.sh --binder picks it).
kernels="$ROOT/build/jupyter-binder/kernels/jjava"
mkdir -p "$kernels"
cp "$spec/jjava.jar" "$spec/jjava-launcher.jar" "$kernels/"
cat >"$kernels/kernel.json" <<'JSON'
{
  "argv": ["java", "-jar", "{resource_dir}/jjava-launcher.jar", "{resource_dir}/jjava.jar", "{connection_file}"],
  "display_name": "Java (JJava, as on Binder)",
  "language": "java",
  "interrupt_mode": "message"
}
JSON
export JUPYTER_PATH="$ROOT/build/jupyter:$ROOT/build/jupyter-binder"

memory="${BINDER_MEMORY:-2G}"
cpus="${BINDER_CPUS:-1}"
cg="d2l-binder-$$"
mkdir "$mem_root/$cg" "$cpu_root/$cg"
cleanup() {
    echo $$ >"$mem_root/tasks" 2>/dev/null || true
    echo $$ >"$cpu_root/tasks" 2>/dev/null || true
    rmdir "$mem_root/$cg" "$cpu_root/$cg" 2>/dev/null || true
}
trap cleanup EXIT
echo "$memory" >"$mem_root/$cg/memory.limit_in_bytes"
echo 100000 >"$cpu_root/$cg/cpu.cfs_period_us"
echo $((100000 * cpus)) >"$cpu_root/$cg/cpu.cfs_quota_us"
echo $$ >"$mem_root/$cg/tasks"
echo $$ >"$cpu_root/$cg/tasks"
log "Binder's limits: memory $memory, $cpus CPU (cgroup $cg)"

status=0
# The memory limit where a container shows it (the lessons read /sys/fs/cgroup/memory); the CPU quota is
# found through /proc/self/cgroup, by the JVM and the lessons alike.
unshare -m bash -c 'mount --bind "$1/$2" "$1" && shift 2 && exec "$@"' _ \
    "$mem_root" "$cg" "$ROOT/scripts/run-notebooks.sh" --binder "$@" || status=$?
peak=$(cat "$mem_root/$cg/memory.max_usage_in_bytes")
log "cgroup: peak $((peak / 1024 / 1024)) MB of $memory (page cache included), limit hit $(cat "$mem_root/$cg/memory.failcnt") time(s)"
exit "$status"
