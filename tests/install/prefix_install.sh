#!/bin/sh
# `cmake --install BUILD --prefix PREFIX` puts every file under PREFIX: the binaries, the
# plugins and the SDK, and also the configuration, the default profile, the systemd unit and
# its sysusers.d entry, which the packages place in /etc and /lib (they configure the prefix
# /usr and absolute unit directories). Staged with DESTDIR so that nothing outside WORK is
# touched even if a rule is wrong.
#
#   prefix_install.sh BUILD_DIR WORK
set -eu
build=$1 work=$2
prefix=/opt/schedhost-prefix-test
rm -rf "$work"
mkdir -p "$work"
DESTDIR="$work/stage" cmake --install "$build" --prefix "$prefix" >"$work/install.log"
root="$work/stage$prefix"
# The manifest lists the paths without DESTDIR.
outside=$(grep -v "^$prefix/" "$build/install_manifest.txt" || true)
if [ -n "$outside" ]; then
  echo "FAIL: installed outside the prefix $prefix:"
  echo "$outside"
  exit 1
fi
for f in bin/schedhost bin/kubectl-schedhost etc/schedhost/schedhost.toml etc/schedhost/profiles.d/default.toml \
  lib/systemd/system/schedhost.service lib/sysusers.d/schedhost.conf; do
  if [ ! -f "$root/$f" ]; then
    echo "FAIL: $prefix/$f not installed"
    exit 1
  fi
done
echo "$(wc -l <"$build/install_manifest.txt") files, all under $prefix"
