#!/usr/bin/env bash
# Installs what schedhost needs to build and test on Debian bookworm.
# Idempotent: packages already present are skipped; apt is touched only when something is missing.
set -euo pipefail

packages=(
  cmake g++ ninja-build pkg-config
  libboost1.81-dev libboost-json1.81-dev
  libspdlog-dev libfmt-dev libtoml11-dev libcli11-dev
  libssl-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev
  clang-tidy clang-format
  # The fuzz preset: clang 14 with libFuzzer; -fsanitize=fuzzer,address,undefined links the
  # runtimes of libclang-rt-14-dev, which clang only recommends.
  clang libfuzzer-14-dev libclang-rt-14-dev
  # Packaging and the plugin SDK's other languages: native DEB and RPM builds and their
  # linters, the unit's security score, Rust plugins.
  dpkg-dev debhelper lintian rpm rpmlint systemd
  cargo
  # The explain page's browser test: Debian's Chromium, driven headless through chromedriver
  # by a Python script, with a font to draw its text in the screenshot.
  chromium chromium-driver fonts-dejavu-core python3
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
