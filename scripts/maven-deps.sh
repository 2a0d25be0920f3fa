#!/usr/bin/env bash
# Fills the local Maven repository with everything that scripts/setup.sh's offline build needs
# (MVN_ARGS=-o), from the pom.xml files alone: the Dockerfile's dependency layer, which
# docker-maven-check.sh replays here. A module without sources gets a placeholder class for the
# build, so that what Maven resolves only when there is something to compile (bench's JMH annotation
# processor) is fetched too; the kernel jar is fetched as setup.sh fetches it. Removes what it made.
#
#   scripts/maven-deps.sh          # MVN_ARGS: extra Maven arguments (e.g. -Dmaven.repo.local=DIR)
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
read -ra MVN_EXTRA <<<"${MVN_ARGS:-}"

made=()
cleanup() {
    if ((${#made[@]})); then rm -rf "${made[@]}"; fi
}
trap cleanup EXIT
for pom in "$ROOT"/*/pom.xml; do
    module="$(dirname "$pom")"
    if [[ ! -d "$module/src" ]]; then
        mkdir -p "$module/src/main/java/placeholder"
        printf 'package placeholder;\n\nfinal class Placeholder {}\n' >"$module/src/main/java/placeholder/Placeholder.java"
        made+=("$module/src" "$module/target")
    fi
done
(cd "$ROOT" && mvn -q -B -DskipTests ${MVN_EXTRA[@]+"${MVN_EXTRA[@]}"} package)
kernel="$(mktemp -d)"
made+=("$kernel")
fetch_kernel_jar "$kernel"
