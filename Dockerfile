# Jupyter Notebook with the Java (rapaio) kernel, the jars and Fashion-MNIST, serving notebooks/ on port
# 8888. Debian 12 packages: those of scripts/debian-packages.sh, as scripts/setup.sh installs them.
#   docker build -t d2l-java-multigpu .
#   docker run --rm -p 8888:8888 -v d2l-notebooks:/opt/d2l/notebooks d2l-java-multigpu
# then open the printed URL (with its token). The named volume d2l-notebooks starts as a copy of the
# lessons (Docker copies the image's notebooks/ into a volume that is empty) and keeps a learner's edits
# and outputs from one container to the next; /opt/d2l/lessons keeps the image's own copy (README, Docker).
# The PyTorch natives are those of the architecture the image is built for (pom.xml's natives-* profiles
# follow the JVM's os.arch: an arm64 host, e.g. Apple Silicon, gets linux-aarch64); to build and run the
# x86_64 image there instead: docker build --platform linux/amd64 ... (and docker run --platform linux/amd64).
# Binder ignores this file (see binder/).
FROM debian:bookworm

COPY scripts/debian-packages.sh /tmp/
# the lists are space-separated on purpose (unquoted below); no recommended packages (compilers, LaTeX
# tools, scientific Python): the image serves the lessons and needs none of them
RUN . /tmp/debian-packages.sh \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        $JDK_PACKAGES ca-certificates $JUPYTER_PACKAGES $DATASET_PACKAGE \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /tmp/debian-packages.sh

WORKDIR /opt/d2l
# Maven's downloads first, in a layer of their own that only a change to a pom.xml (or to the scripts
# below) rebuilds: scripts/maven-deps.sh builds the modules from their pom.xml files with a placeholder
# class each, which fetches every dependency and plugin the real build and scripts/serve.sh's start use.
# docker-maven-check.sh replays these steps without Docker against an empty Maven repository.
COPY pom.xml ./
COPY support-lib/pom.xml support-lib/
COPY spark-lib/pom.xml spark-lib/
COPY bench/pom.xml bench/
COPY kernel-launcher/pom.xml kernel-launcher/
COPY scripts/common.sh scripts/
COPY scripts/debian-packages.sh scripts/
COPY scripts/maven-deps.sh scripts/
RUN scripts/maven-deps.sh

COPY . .
# Builds the jars and the kernel launcher (offline: everything is in /root/.m2) and installs the kernel
# (rapaio, pom.xml's rapaio.version, started by the launcher) in build/jupyter.
RUN MVN_ARGS=-o scripts/setup.sh && cp -r notebooks /opt/d2l/lessons
# serve.sh re-runs setup.sh at start, which finds the jars up to date and starts no build (offline even if
# it had to).
ENV MVN_ARGS=-o

EXPOSE 8888
# serve.sh adds --allow-root itself when it runs as root.
CMD ["scripts/serve.sh", "--ip=0.0.0.0"]
