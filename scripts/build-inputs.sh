#!/usr/bin/env bash
# Prints one SHA-256 digest of everything the jars are built from, so that scripts/setup.sh can tell
# whether its `mvn package` has anything to do.
#
#   scripts/build-inputs.sh [DIR]      (DIR: a checkout, default this one)
#
# The inputs: every pom.xml, every file under a module's src/, the Maven arguments that choose what is
# built (the -D and -P words of MVN_ARGS: -Dgpu builds other jars; -o and -q do not count) and the JDK
# that builds them. File contents count, not their times, so a copy or a
# fresh clone of unchanged sources gives the same digest. Files are listed in a fixed order (LC_ALL=C).
set -euo pipefail
dir="$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/..}" && pwd)"
cd "$dir"
{
    for word in ${MVN_ARGS:-}; do
        [[ "$word" == -[DP]* ]] && printf 'maven %s\n' "$word"
    done
    "${JAVA_HOME:+$JAVA_HOME/bin/}java" -version 2>&1 | head -n 1
    find . -maxdepth 2 -name pom.xml -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
    find . -mindepth 2 -maxdepth 2 -name src -type d -print0 | LC_ALL=C sort -z |
        xargs -0 -I{} find {} -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
} | sha256sum | cut -d' ' -f1
