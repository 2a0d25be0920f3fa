#!/usr/bin/env bash
# Installs Apache Maven 3.9.9 from Maven Central into /opt (checked against its SHA-512) and links it as
# /usr/local/bin/mvn: for systems whose packaged Maven is older than the 3.8 the build needs (Ubuntu
# 22.04 ships 3.6.3). Run as root; scripts/setup.sh and binder/colab-setup.sh call it when needed.
#   MAVEN_URL  where to take the tar.gz from (default: Maven Central; still checked against the SHA-512)
set -euo pipefail
MAVEN_VERSION=3.9.9
MAVEN_SHA512=a555254d6b53d267965a3404ecb14e53c3827c09c3b94b5678835887ab404556bfaf78dcfe03ba76fa2508649dca8531c74bca4d5846513522404d48e8c4ac8b
MAVEN_URL="${MAVEN_URL:-https://repo1.maven.org/maven2/org/apache/maven/apache-maven/$MAVEN_VERSION/apache-maven-$MAVEN_VERSION-bin.tar.gz}"
echo "Installing Apache Maven $MAVEN_VERSION into /opt"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
curl -fsSL --retry 3 -o "$tmp/maven.tar.gz" "$MAVEN_URL"
echo "$MAVEN_SHA512  $tmp/maven.tar.gz" | sha512sum -c --quiet - ||
    { echo "error: $MAVEN_URL does not have Apache Maven $MAVEN_VERSION's SHA-512" >&2; exit 1; }
tar -xzf "$tmp/maven.tar.gz" -C /opt
ln -sfn "/opt/apache-maven-$MAVEN_VERSION/bin/mvn" /usr/local/bin/mvn
