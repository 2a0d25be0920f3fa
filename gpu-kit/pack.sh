#!/usr/bin/env bash
# Packs what an offline GPU machine needs to run the GPU test group, the lessons and the GPU benchmark, into
# build/gpu-kit/kit.tar.xz (62 MB; 44 MB with KIT_TRAIN_IMAGES=12000): a small Java runtime (jlink), the project's jars and their class path,
# JUnit's console launcher, jni.h, and Fashion-MNIST.
# Run it here (a machine with the JDK, Maven's artifacts and Debian's dataset-fashion-mnist), then take the
# checkout with build/gpu-kit to the GPU machine and run gpu-kit/run.sh there (gpu-kit/README.md).
#
#   gpu-kit/pack.sh
#
# Environment:
#   KIT_TRAIN_IMAGES    how many Fashion-MNIST training images to carry (default all 60000; fewer make a
#                       smaller kit, enough for the smoke runs but not for the concise lesson's book-scale run)
#   MVN_ARGS            extra Maven arguments, e.g. -o
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
die() { printf 'gpu-kit/pack: %s\n' "$*" >&2; exit 1; }
say() { printf 'gpu-kit/pack: %s\n' "$*" >&2; }
read -ra mvn_extra <<<"${MVN_ARGS:-}"
train_images=${KIT_TRAIN_IMAGES:-60000}
data_dir=${FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
junit_console=org.junit.platform:junit-platform-console-standalone:1.11.4

command -v jlink >/dev/null || die "jlink not found: install a JDK 17 (sudo apt-get install openjdk-17-jdk-headless)"
command -v mvn >/dev/null || die "mvn not found: run scripts/setup.sh first"
command -v xz >/dev/null || die "xz not found: sudo apt-get install xz-utils"
[[ -f "$data_dir/train-images-idx3-ubyte.gz" ]] ||
    die "no Fashion-MNIST in $data_dir: sudo apt-get install dataset-fashion-mnist, or set FASHION_MNIST_DIR"
jdk=$(dirname "$(dirname "$(readlink -f "$(command -v jlink)")")")
[[ -f "$jdk/include/jni.h" ]] || die "no include/jni.h in $jdk: install the full JDK"

out="$root/build/gpu-kit"
stage="$out/stage"
rm -rf "$out"
mkdir -p "$stage"/{lib,jni,data}

say "building the jars (support, tests, benchmark)"
mvn -q -B "${mvn_extra[@]}" -DskipTests install -pl support-lib -am
mvn -q -B "${mvn_extra[@]}" -DskipTests package -pl bench
# The support jar's test class path without PyTorch's CPU natives and JNI: the GPU machine builds its own JNI.
mvn -q -B "${mvn_extra[@]}" dependency:build-classpath -pl support-lib -Dmdep.includeScope=test \
    -Dmdep.outputFile="$out/classpath.txt"
mvn -q -B "${mvn_extra[@]}" dependency:copy -Dartifact="$junit_console" -DoutputDirectory="$stage/lib" \
    -Dmdep.stripVersion=true
mv "$stage/lib/junit-platform-console-standalone.jar" "$stage/junit-console.jar"

# Jars are stored uncompressed in the kit: xz over many class files packs them 4-8 times smaller than zip does.
store_jar() { # SOURCE.jar DEST.jar
    local tmp
    tmp=$(mktemp -d)
    (cd "$tmp" && unzip -q -o "$1" && zip -q -0 -r -X "$2" .)
    rm -rf "$tmp"
}
jars=()
while read -r jar || [[ -n "$jar" ]]; do # Maven writes no newline after the last entry
    # Left out: PyTorch's CPU natives and JNI (the GPU machine builds its own), JUnit (in its console launcher) and
    # ICU4J (32 MB; only Tablesaw's charset detection of files it reads needs it, and no lesson reads files with it).
    case "$(basename "$jar")" in
        pytorch-native-cpu-* | pytorch-jni-* | junit-* | opentest4j-* | apiguardian-* | icu4j-*) continue ;;
    esac
    jars+=("$jar")
done < <(tr ':' '\n' <"$out/classpath.txt")
jars+=(support-lib/target/d2l-multigpu.jar support-lib/target/d2l-multigpu-tests.jar)
# The benchmark's own dependency (its command line); not Spark's, which the kit does not carry.
picocli=$(tr ':' '\n' <bench/target/classpath.txt | grep '/picocli-[^/]*\.jar$') ||
    die "no picocli jar in bench/target/classpath.txt: the benchmark's build changed"
jars+=("$picocli")
(cd bench/target/classes && zip -q -0 -r -X "$stage/lib/d2l-bench.jar" .)
for jar in "${jars[@]}"; do
    store_jar "$(readlink -f "$jar")" "$stage/lib/$(basename "$jar")"
done
(cd "$stage/lib" && ls ./*.jar | sed 's:^\./::' >../classpath.txt)

say "linking a Java runtime"
# What the trainers, the tests, JShell (the kernel) and the plots need; javac's ct.sym (only for --release) is left out.
jlink --add-modules java.base,java.logging,java.management,jdk.management,jdk.unsupported,java.naming,java.sql,\
java.desktop,java.net.http,java.scripting,java.instrument,jdk.zipfs,java.xml,jdk.jshell,jdk.compiler,jdk.jdi \
    --strip-debug --no-header-files --no-man-pages --compress=0 --output "$stage/jre" >/dev/null
rm -f "$stage/jre/lib/ct.sym"
# The figures draw text: AWT's font manager needs HarfBuzz and FreeType (Debian's JDK uses the system's), fontconfig
# and a font, which a GPU machine's image may lack. The libraries go beside libfontmanager.so (found through its
# RPATH $ORIGIN), DejaVu into the runtime's lib/fonts (gpu-kit/run.sh points fontconfig there).
fontconfig=$(ldconfig -p | awk '/libfontconfig\.so\.1 .*x86-64/ { found = $NF } END { print found }')
[[ -n "$fontconfig" ]] || die "no libfontconfig.so.1 here: sudo apt-get install libfontconfig1"
ldd "$stage/jre/lib/libfontmanager.so" "$fontconfig" | awk '/=> \// { print $3 }' | sort -u | grep -v "^$stage/" |
    grep -v -E '/(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|libz)\.so' |
    while read -r lib; do cp -L "$lib" "$stage/jre/lib/"; done
cp -L "$fontconfig" "$stage/jre/lib/"
fonts=/usr/share/fonts/truetype/dejavu
[[ -f "$fonts/DejaVuSans.ttf" ]] || die "no DejaVu fonts in $fonts: sudo apt-get install fonts-dejavu-core"
mkdir -p "$stage/jre/lib/fonts"
cp "$fonts"/DejaVuSans.ttf "$fonts"/DejaVuSansMono.ttf "$stage/jre/lib/fonts/"
cp "$jdk/include/jni.h" "$jdk/include/linux/jni_md.h" "$stage/jni/"

say "Fashion-MNIST: all 10,000 test images, $train_images training images"
# Unzipped: xz packs the raw images into 15% less than gzip did, and the lessons read IDX files gzipped or not.
for f in t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
    gzip -dc "$data_dir/$f.gz" >"$stage/data/$f"
done
python3 "$root/gpu-kit/fashion_subset.py" "$data_dir" "$stage/data" "$train_images"

say "compressing"
tar -C "$stage" -c . | xz -9 -T0 >"$out/kit.tar.xz"
rm -rf "$stage"
say "$(du -h "$out/kit.tar.xz" | cut -f1) in build/gpu-kit/kit.tar.xz; on the GPU machine: gpu-kit/run.sh"
