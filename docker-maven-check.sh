#!/usr/bin/env bash
# Replays the Dockerfile's build steps after its WORKDIR here, without Docker: its COPY lines into a
# temporary folder and its RUN lines there, with an empty Maven repository (MAVEN_OPTS points Maven at a
# new temporary folder, as empty as the image's ~/.m2). The dependency layer runs online; `COPY . .` then
# copies the files git tracks (less .dockerignore's folders), and the RUN lines after it must build
# offline; last, scripts/setup.sh runs once more offline, as scripts/serve.sh starts it in the
# container (ENV MVN_ARGS=-o). Run it before committing a change to a pom.xml, to the Dockerfile or to
# the scripts it runs (CONTRIBUTING.md): about 400 MB of downloads, a few minutes.
#
#   ./docker-maven-check.sh [DOCKERFILE]     # KEEP=1 keeps the temporary folder and says where it is
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DOCKERFILE="${1:-$ROOT/Dockerfile}"
work="$(mktemp -d)"
if [[ "${KEEP:-}" == 1 ]]; then
    trap 'echo "kept: $work"' EXIT
else
    trap 'rm -rf "$work"' EXIT
fi
tree="$work/opt-d2l"
repo="$work/m2"
mkdir -p "$tree" "$repo"
export MAVEN_OPTS="${MAVEN_OPTS:-} -Dmaven.repo.local=$repo" # Java's user.home ignores HOME: name the repository

step=0
started=""
while IFS= read -r line; do
    [[ -z "$started" ]] && { [[ "$line" == WORKDIR* ]] && started=1; continue; }
    case "$line" in
        "COPY . .")
            git -C "$ROOT" ls-files -z | grep -zvE '^(\.git/|build/|.*/target/|.*\.ipynb_checkpoints/)' \
                | (cd "$ROOT" && xargs -0 cp --parents -t "$tree")
            echo "docker-maven-check: COPY . . ($(git -C "$ROOT" ls-files | wc -l) files)" ;;
        COPY\ *)
            read -r _ src dest <<<"$line"
            install -D -m "$(stat -c %a "$ROOT/$src")" "$ROOT/$src" "$tree/${dest%/}/$(basename "$src")" ;;
        RUN\ *)
            [[ "$line" == *\\ ]] && { echo "docker-maven-check: a RUN line continued with \\ is not replayed: $line" >&2; exit 2; }
            step=$((step + 1))
            echo "docker-maven-check: step $step: ${line#RUN }"
            (cd "$tree" && bash -c "${line#RUN }") || { echo "docker-maven-check: FAILED at step $step: ${line#RUN }" >&2; exit 1; } ;;
    esac
done <"$DOCKERFILE"
[[ -n "$started" && "$step" -gt 0 ]] || { echo "docker-maven-check: no WORKDIR and RUN lines in $DOCKERFILE" >&2; exit 2; }
echo "docker-maven-check: as scripts/serve.sh starts in the container: MVN_ARGS=-o scripts/setup.sh"
(cd "$tree" && MVN_ARGS=-o scripts/setup.sh) || { echo "docker-maven-check: FAILED at serve.sh's start" >&2; exit 1; }
echo "docker-maven-check: passed ($(du -sh "$repo" | cut -f1) in the Maven repository)"
