# shellcheck shell=sh disable=SC2034  # sourced: the variables are used by the sourcing scripts
# The Debian/Ubuntu packages that the set-ups install, in one place; sourced (POSIX sh, no side effects)
# by scripts/common.sh (so scripts/setup.sh), the Dockerfile, binder/colab-setup.sh, binder/postBuild,
# binder/start and scripts/try-colab-binder.sh. Binder's binder/apt.txt lists none of them (see there).
# Space-separated lists, used unquoted: apt-get install -y $JDK_PACKAGES $JUPYTER_PACKAGES

# A JDK >= 17 with jshell (the kernels need a full JDK) and Maven >= 3.8 (Colab installs a newer Maven
# itself where Ubuntu's is older: binder/colab-setup.sh).
JDK_PACKAGE=openjdk-17-jdk-headless
JDK_PACKAGES="$JDK_PACKAGE maven"
# Jupyter Notebook and the tools that run lessons from the command line (scripts/run-notebooks.sh).
JUPYTER_PACKAGES="jupyter-notebook jupyter-nbconvert python3-nbclient jupyter-client python3-ipykernel"
# The official Fashion-MNIST files (MIT), installed into DATASET_DIR; where the package is missing the
# set-ups fetch the same files (binder/fetch-fashion-mnist.sh, content checked).
DATASET_PACKAGE=dataset-fashion-mnist
DATASET_DIR=/usr/share/datasets/fashion-mnist
