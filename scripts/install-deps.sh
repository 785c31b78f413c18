#!/usr/bin/env bash
# Installs every Debian 12 package pcglab needs to build, test and run its demo, then the npm
# packages the tests use as oracles (tests/oracle/install.sh).
# Idempotent: when everything is present it only checks (a second or two) and touches nothing.
# `apt-get update` runs only when something is missing. Needs root or sudo for the Debian packages.
set -euo pipefail
cd "$(dirname "$0")/.."

# The official npm implementations are test oracles only, installed once into a folder outside the
# build (the tests look there, and skip with a message when they are missing): $PCGLAB_ORACLE_DIR,
# or ${XDG_CACHE_HOME:-~/.cache}/pcglab/npm. A failed npm install (no registry) is not an error.
install_oracles() {
  local dir=${PCGLAB_ORACLE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pcglab/npm}
  bash tests/oracle/install.sh "$dir" ||
    echo "install-deps: the npm oracles are not installed in $dir; the tests that use them will be skipped" >&2
}

# Build toolchain and libraries.
packages=(
  build-essential cmake ninja-build g++-12 ccache pkg-config git
  libfmt-dev libcli11-dev nlohmann-json3-dev libpugixml-dev libcurl4-openssl-dev
  libsqlite3-dev sqlite3 libbox2d-dev libpng-dev zlib1g-dev libfreetype-dev libyaml-cpp-dev
  libtorch-dev pybind11-dev python3-dev python3-numpy
  # The Python package (docs/python.md): its tests, `python3 -m build`, `pip install .`. Not
  # python3-matplotlib (the example plots only where it is present): it pulls in fonts-lyx, whose
  # faces would join the letter classifiers' training fonts (birds/letters/letter_data.h).
  python3-pytest python3-build python3-pip python3-venv
  bubblewrap libseccomp-dev libcpp-httplib-dev libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-format clang-tidy
  # Test oracles (Pillow: the official ViT preprocessing) and report tests.
  chromium python3-pil
  # The terminal that `textgame play`'s test types into.
  tmux
  # Slurm and munge: `pcglab sweep` submits to Slurm; its tests start a private controller and node
  # daemon (tests/sweep/slurm_cluster.sh). The services are never enabled or started by pcglab.
  slurmctld slurmd slurm-client munge
  # libtorch and numpy link libblas.so.3: OpenBLAS (OpenMP, like libtorch) instead of the slow
  # reference BLAS (ViT-B/16 and dense layers are ~6x faster).
  libopenblas0-openmp
  # Typefaces for the built-in letter classifier's training data.
  fonts-dejavu-core fonts-dejavu-extra fonts-liberation2 fonts-freefont-ttf fonts-urw-base35
  fonts-crosextra-carlito fonts-crosextra-caladea fonts-open-sans fonts-roboto-unhinted
  fonts-noto-core
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm are test oracles only; a machine may already have them from another source
# (Debian's npm conflicts with NodeSource's nodejs, which bundles npm), so check the commands.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  install_oracles
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: apt-get is not available; pcglab needs Debian 12 packages: ${missing[*]}" >&2
  exit 2
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "install-deps: must run as root or with sudo to install: ${missing[*]}" >&2
    exit 2
  fi
fi
echo "install-deps: installing ${#missing[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
install_oracles
