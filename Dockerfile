# Jupyter Notebook with the Java (rapaio) kernel, the support jar and Fashion-MNIST, serving
# notebooks/ on port 8888. Debian 12 packages: those of scripts/debian-packages.sh, as scripts/setup.sh.
#   docker build -t d2l-java-multigpu .
#   docker run --rm -p 8888:8888 d2l-java-multigpu      # then open the printed URL (token)
# The PyTorch natives are those of the architecture the image is built for (pom.xml's natives-* profiles
# follow the JVM's os.arch: an arm64 host, e.g. Apple Silicon, gets linux-aarch64); to build and run the
# x86_64 image there instead: docker build --platform linux/amd64 ... (and docker run --platform linux/amd64).
# The project's machines have no Docker engine; buildah built and served an earlier version of this file
# there (its os.arch profiles are new since). Binder ignores this file (see binder/).
FROM debian:bookworm

COPY scripts/debian-packages.sh /tmp/
# the lists are space-separated on purpose (unquoted below)
RUN . /tmp/debian-packages.sh \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y \
        $JDK_PACKAGES ca-certificates $JUPYTER_PACKAGES $DATASET_PACKAGE \
 && rm -rf /var/lib/apt/lists/* /tmp/debian-packages.sh

WORKDIR /opt/d2l
COPY . .
# Builds the support jar and the kernel launcher (Maven downloads into /root/.m2) and installs the kernel
# (rapaio, pom.xml's rapaio.version, started by the launcher) in build/jupyter.
RUN scripts/setup.sh
# serve.sh re-runs setup.sh at start: stay offline then, everything is in /root/.m2 already.
ENV MVN_ARGS=-o

EXPOSE 8888
CMD ["scripts/serve.sh", "--ip=0.0.0.0", "--allow-root"]
