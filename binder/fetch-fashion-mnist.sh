#!/usr/bin/env bash
# Downloads the official Fashion-MNIST files (zalandoresearch/fashion-mnist on GitHub) into DEST and checks
# each file's uncompressed content against the SHA-256 of the official data (the files that Debian's
# dataset-fashion-mnist package installs); a file that does not match is removed and the script fails.
#
#   binder/fetch-fashion-mnist.sh DEST
#
# Used where the Debian/Ubuntu package is not installed: binder/colab-setup.sh when apt-get cannot
# install it, binder/postBuild always (Binder's apt.txt cannot fall back: a missing package fails the
# build). Files already in DEST that match are kept. FASHION_MNIST_URL replaces the download folder.
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 DEST" >&2; exit 2; }
dest="$1"
url="${FASHION_MNIST_URL:-https://raw.githubusercontent.com/zalandoresearch/fashion-mnist/master/data/fashion}"
mkdir -p "$dest"
while read -r name sha; do
    file="$dest/$name.gz"
    if [[ -f "$file" ]] && [[ "$(gzip -dc "$file" | sha256sum | cut -d' ' -f1)" == "$sha" ]]; then
        continue
    fi
    curl -fsSL --retry 3 -o "$file.part" "$url/$name.gz"
    got="$(gzip -dc "$file.part" | sha256sum | cut -d' ' -f1)" || got="not gzip"
    if [[ "$got" != "$sha" ]]; then
        rm -f "$file.part"
        echo "error: $url/$name.gz is not the official Fashion-MNIST file (content SHA-256 $got, expected $sha)" >&2
        exit 1
    fi
    mv "$file.part" "$file"
done <<'SUMS'
train-images-idx3-ubyte c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888
train-labels-idx1-ubyte bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9
t10k-images-idx3-ubyte 5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b
t10k-labels-idx1-ubyte 0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34
SUMS
echo "Fashion-MNIST in $dest (content checked)"
