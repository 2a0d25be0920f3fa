#!/usr/bin/env bash
# Whether this CPU trains right with PyTorch's oneDNN kernels, at each instruction set oneDNN can be capped at:
# the reproduction of the random NaN losses seen on an AMD Zen 5, to run by hand or attach to a report.
#
#   scripts/cpu-check.sh [runs]      (runs: fresh networks per setting, default 20; about 3 minutes in all)
#
# Prints where it runs (runtime.Platform), then for oneDNN's default and every cap below it (ONEDNN_MAX_CPU_ISA=
# AVX512_CORE where the CPU has AVX-512, AVX2, AVX, SSE41), with the project's allocator settings (runtime.NativeMemory)
# and without them (D2L_MALLOC_TUNING=false):
#   - runtime.KernelSelfTest: the training loop (LeNet, batch 8, SGD lr 0.1, random data, 20 steps per network),
#     counting networks whose loss turns NaN, then every operation of 2 more networks' steps (convolutions, dense
#     layers, poolings, forward and backward, SGD update) against float64 within float32's error bound;
#   - scripts/repro/DjlConvNan.java: the same loop with DJL alone (no project code), for an upstream report.
# oneDNN's own words (ONEDNN_VERBOSE=profile_create) give its version, instruction set and convolution kernel.
# The CPU check that runs before training (runtime.CpuCheck) is off here, so that every setting runs as asked.
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
runs=${1:-20}
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "runs must be a positive number, not '$runs'"
jar="$ROOT/support-lib/target/d2l-multigpu.jar"
if [[ ! -f $jar ]]; then
    log "==> building the support jar"
    (cd "$ROOT" && mvn -q -B ${MVN_ARGS:-} -pl support-lib -am -DskipTests package)
fi
java=(java --enable-native-access=ALL-UNNAMED)
log "==> where this runs"
"${java[@]}" -cp "$jar" org.d2l.multigpu.runtime.Platform
caps=(default)
grep -qw avx512f /proc/cpuinfo && caps+=(AVX512_CORE)
caps+=(AVX2 AVX SSE41)
log
log "| ONEDNN_MAX_CPU_ISA | oneDNN's instruction set | convolution kernel | allocator | NaN losses (self-test) | operations outside float32's bound | NaN losses (DJL alone) |"
log "|---|---|---|---|---|---|---|"
for cap in "${caps[@]}"; do
    for alloc in tuned glibc; do
        env=(D2L_CPU_CHECK=false ONEDNN_VERBOSE=profile_create)
        [[ $cap != default ]] && env+=("ONEDNN_MAX_CPU_ISA=$cap")
        [[ $alloc == glibc ]] && env+=(D2L_MALLOC_TUNING=false)
        out=$(env -u ONEDNN_MAX_CPU_ISA -u DNNL_MAX_CPU_ISA "${env[@]}" "${java[@]}" -cp "$jar" \
            org.d2l.multigpu.runtime.KernelSelfTest --runs "$runs" --steps 20 --op-runs 2 2>&1 || true)
        isa=$(sed -n 's/.*,info,cpu,isa://p' <<<"$out" | head -n1)
        kernel=$(grep -o 'convolution,[^,]*' <<<"$out" | sort -u | cut -d, -f2 | paste -sd' ' -)
        summary=$(grep '^CHECK \(pass\|FAIL\)' <<<"$out" || echo "CHECK did not finish: $(tail -n1 <<<"$out")")
        nan=$(sed -n 's/.*NaN loss in \([0-9]* of [0-9]*\) training runs.*/\1/p' <<<"$summary")
        outside=$(grep -c '^CHECK .*outside the float32 bound' <<<"$out" || true)
        alone_args=(8 "$runs" 20 "$([[ $alloc == glibc ]] && echo plain || echo tuned)")
        alone=$(env -u ONEDNN_MAX_CPU_ISA -u DNNL_MAX_CPU_ISA "${env[@]}" "${java[@]}" -cp "$ROOT/support-lib/target/lib/*" \
            "$ROOT/scripts/repro/DjlConvNan.java" "${alone_args[@]}" 2>/dev/null | sed -n 's/.*loss not finite in \([0-9]* of [0-9]*\) runs.*/\1/p')
        log "| $cap | ${isa:-?} | ${kernel:-?} | $alloc | ${nan:-?} | $outside | ${alone:-?} |"
        grep '^CHECK ' <<<"$out" | grep -v '^CHECK \(pass\|FAIL\|within\)' | head -n 5 | sed 's/^CHECK /    /' >&2 || true
    done
done
log
log "NaN losses: networks whose loss turned NaN or infinite out of those trained. Operations outside float32's bound:"
log "operation and pass kinds with any element further from float64 than n u |terms| allows (runtime.ErrorBound);"
log "their first findings are printed on stderr under each row."
