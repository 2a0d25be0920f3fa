#!/usr/bin/env bash
# Builds DJL's PyTorch JNI library (libdjl_torch.so) against the libtorch of a local PyTorch, as DJL's
# engines/pytorch/pytorch-native/build.sh does, with g++ alone (no CMake, no download), and puts it where DJL
# looks for it: $DJL_CACHE_DIR/pytorch/<version>-<flavor>-linux-x86_64/$DJL_VERSION-libdjl_torch.so.
#
#   DJL_VERSION=0.36.0 gpu-kit/build-jni.sh TORCH_DIR JNI_INCLUDE_DIR DJL_CACHE_DIR [--only-env]
#
# With --only-env it builds nothing and only prints the three lines below (for a JNI built earlier).
# TORCH_DIR is the torch package folder (holding lib/ and include/), JNI_INCLUDE_DIR holds jni.h and jni_md.h.
# Prints three lines for the caller: PYTORCH_LIBRARY_PATH=..., PYTORCH_VERSION=..., PYTORCH_FLAVOR=...
# The C++ ABI is torch's own (asked of $PYTHON, default python3; TORCH_CXX11_ABI=0 or 1 says it instead).
# DJL_VERSION is the release of the DJL jars that will load it (run.sh reads it off the kit's jars). The sources
# in gpu-kit/djl-jni are DJL 0.35.1's, the same as 0.36.0's (Apache License 2.0), with the header javac -h makes of
# PyTorchLibrary.java; see gpu-kit/README.md.
set -euo pipefail
kit=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { printf 'build-jni: %s\n' "$*" >&2; exit 1; }
(($# == 3 || $# == 4)) || die "usage: DJL_VERSION=... gpu-kit/build-jni.sh TORCH_DIR JNI_INCLUDE_DIR DJL_CACHE_DIR [--only-env]"
[[ "${DJL_VERSION:-}" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
    die "set DJL_VERSION to the release of the DJL jars that will load the library (say 0.36.0), got '${DJL_VERSION:-}'"
torch=$(cd "$1" && pwd) jni=$2 cache=$3
[[ -f "$torch/lib/libtorch.so" ]] || die "no lib/libtorch.so in $torch: give the torch package's folder"

# The version and flavor DJL is told (2.11.0 and cu130, or cpu), from torch/version.py.
full=$(sed -n "s/^__version__ = '\(.*\)'.*/\1/p" "$torch/version.py")
cuda=$(sed -n "s/^cuda: .*= '\([0-9]*\)\.\([0-9]*\).*'/\1\2/p; s/^cuda = '\([0-9]*\)\.\([0-9]*\).*'/\1\2/p" "$torch/version.py")
version=${full%%+*}
[[ -n "$version" ]] || die "cannot read the version from $torch/version.py"
flavor=cpu
[[ -n "$cuda" ]] && flavor=cu$cuda
dir="$cache/pytorch/$version-$flavor-linux-x86_64"
if [[ "${4:-}" == --only-env ]]; then
    mkdir -p "$dir"
    printf 'PYTORCH_LIBRARY_PATH=%s\nPYTORCH_VERSION=%s\nPYTORCH_FLAVOR=%s\n' "$torch/lib" "$version" "$flavor"
    exit 0
fi

[[ -f "$torch/include/torch/extension.h" || -d "$torch/include/torch/csrc/api/include" ]] ||
    die "no C++ headers in $torch/include: this PyTorch was installed without them"
[[ -f "$jni/jni.h" && -f "$jni/jni_md.h" ]] || die "no jni.h and jni_md.h in $jni"
command -v g++ >/dev/null || die "g++ not found: install a C++ compiler (g++ 9 or newer)"
abi=${TORCH_CXX11_ABI:-$("${PYTHON:-python3}" -c 'import torch; print(int(torch.compiled_with_cxx11_abi()))' 2>/dev/null)} ||
    true
[[ "$abi" == 0 || "$abi" == 1 ]] || die "cannot ask ${PYTHON:-python3} for torch's C++ ABI: set TORCH_CXX11_ABI to 0 or 1"
flags=(-std=c++17 -O2 -fPIC -w -D_GLIBCXX_USE_CXX11_ABI="$abi" -I"$kit/djl-jni" -I"$jni" -I"$torch/include"
       -I"$torch/include/torch/csrc/api/include")
libs=(-L"$torch/lib" -ltorch -ltorch_cpu -lc10)
if [[ -n "$cuda" ]]; then
    flags+=(-DUSE_CUDA)
    # CUDA's runtime headers: CUDA_HOME, /usr/local/cuda, beside nvcc, or the nvidia-cuda-runtime wheel beside torch
    cuda_include=
    for d in ${CUDA_HOME:+"$CUDA_HOME/include"} /usr/local/cuda/include \
             ${CUDA_HOME:+"$CUDA_HOME/targets/x86_64-linux/include"} /usr/local/cuda/targets/x86_64-linux/include \
             "$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /none/bin/nvcc)")")/include" \
             "$torch/../nvidia/cuda_runtime/include" "$torch"/../nvidia/cu*/include; do
        [[ -f "$d/cuda_runtime_api.h" ]] && { cuda_include=$d; break; }
    done
    [[ -n "$cuda_include" ]] || die "no cuda_runtime_api.h found: set CUDA_HOME to the CUDA toolkit"
    flags+=(-I"$cuda_include")
    [[ -f "$torch/lib/libtorch_cuda.so" ]] && libs+=(-ltorch_cuda -lc10_cuda)
fi
# DJL builds 1.13.1 to 2.1 with V1_13_X (build.sh); later versions need nothing.
[[ "$version" =~ ^(1\.13\.1|2\.0\.1|2\.1\..*)$ ]] && flags+=(-DV1_13_X)

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf 'build-jni: DJL %s JNI against PyTorch %s (%s) in %s\n' "$DJL_VERSION" "$full" "$flavor" "$torch" >&2
start=$SECONDS
# 15 sources, one compiler per core (each needs about 1 GB).
printf '%s\n' "$kit"/djl-jni/*.cc |
    xargs -P "$(nproc)" -I{} sh -c 'g++ "$@" -c "{}" -o "'"$out"'/$(basename "{}" .cc).o" || exit 255' sh "${flags[@]}"
g++ -shared -o "$out/libdjl_torch.so" "$out"/*.o "${libs[@]}" -Wl,-rpath,"$torch/lib"
mkdir -p "$dir"
cp "$out/libdjl_torch.so" "$dir/$DJL_VERSION-libdjl_torch.so"
printf 'build-jni: %s in %d s\n' "$dir/$DJL_VERSION-libdjl_torch.so" $((SECONDS - start)) >&2
printf 'PYTORCH_LIBRARY_PATH=%s\nPYTORCH_VERSION=%s\nPYTORCH_FLAVOR=%s\n' "$torch/lib" "$version" "$flavor"
