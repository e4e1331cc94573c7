#!/usr/bin/env bash
# Builds the DEB and RPM packages from the committed tree.
#
#   scripts/build-packages.sh [--fast] [--deb-only | --rpm-only] [OUTPUT_DIR]
#
# OUTPUT_DIR (default build/packages) receives the .deb, .rpm and build logs:
#   OUTPUT_DIR/*.deb            the Debian packages (dpkg-buildpackage -us -uc -b)
#   OUTPUT_DIR/*.rpm            the RPM packages (rpmbuild -bb packaging/rpm/schedhost.spec)
#   OUTPUT_DIR/work/            the scratch source trees and rpmbuild's _topdir
# The sources are `git archive HEAD` in a git checkout (so uncommitted changes are not
# packaged), else a copy of the tree without build/.
#
# --fast builds without optimisation and without debug information (DEB_BUILD_OPTIONS=noopt
# with -g stripped from dpkg-buildflags' flags, RPM optflags -O0), as a unity build
# (SCHEDHOST_EXTRA_CMAKE_ARGS for debian/rules, the schedhost_cmake_args macro for the spec):
# the packaging tests check the packages' layout, metadata and scripts, not the code inside,
# and such a build of the host takes a fraction of the compile time.
# Packages for users are built without it. DEB_BUILD_OPTIONS from the environment is
# honoured (parallel=N sets both builds' job count; default: the number of CPUs).
set -euo pipefail

fast=0
formats="deb rpm"
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --fast) fast=1 ;;
    --deb-only) formats="deb" ;;
    --rpm-only) formats="rpm" ;;
    -h | --help) sed -n '2,18p' "$0"; exit 0 ;;
    -*) echo "build-packages: unknown option $1" >&2; exit 2 ;;
    *) out="$1" ;;
  esac
  shift
done

root=$(cd "$(dirname "$0")/.." && pwd)
out=${out:-$root/build/packages}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(sed -n 's/^project(schedhost VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")

# The three places that name the version must agree, or one package would lie about it.
debVersion=$(sed -n '1s/^schedhost (\([^)-]*\).*/\1/p' "$root/packaging/debian/changelog")
rpmVersion=$(sed -n 's/^Version: *//p' "$root/packaging/rpm/schedhost.spec")
if [ "$debVersion" != "$version" ] || [ "$rpmVersion" != "$version" ]; then
  echo "build-packages: version mismatch: CMakeLists.txt $version," \
       "packaging/debian/changelog $debVersion, packaging/rpm/schedhost.spec $rpmVersion" >&2
  exit 1
fi

jobs=$(nproc)
if [[ " ${DEB_BUILD_OPTIONS:-} " =~ [[:space:]]parallel=([0-9]+)[[:space:]] ]]; then
  jobs=${BASH_REMATCH[1]}
fi
debOptions="${DEB_BUILD_OPTIONS:-} parallel=$jobs"
# Without debug information there is nothing for -dbgsym packages to hold.
if [ $fast -eq 1 ]; then debOptions="$debOptions noopt noautodbgsym"; fi
debOptions=$(echo "$debOptions" | xargs -n1 | awk '!seen[$1]++' | xargs)
optflags=""
cmakeArgs=""
if [ $fast -eq 1 ]; then
  optflags="-O0"
  export DEB_CFLAGS_STRIP="-g" DEB_CXXFLAGS_STRIP="-g"
  # A unity build: eight sources to a translation unit, the headers parsed once for them.
  cmakeArgs="-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8"
elif [[ " ${DEB_BUILD_OPTIONS:-} " == *" noopt "* ]]; then
  optflags="-O0 -g"
fi

work="$out/work"
rm -rf "$work"
mkdir -p "$work"
rm -f "$out"/*.deb "$out"/*.ddeb "$out"/*.rpm "$out"/*.buildinfo "$out"/*.changes

# One pristine copy of the sources, named as the RPM tarball wants it.
src="$work/schedhost-$version"
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git -C "$root" archive --format=tar --prefix="schedhost-$version/" HEAD | tar -x -C "$work"
else
  mkdir -p "$src"
  tar -C "$root" --exclude=./build --exclude=./.git -cf - . | tar -x -C "$src"
fi

start=$(date +%s)
if [[ " $formats " == *" deb "* ]]; then
  echo "build-packages: DEB (DEB_BUILD_OPTIONS='$debOptions')"
  debSrc="$work/deb/schedhost-$version"
  mkdir -p "$work/deb"
  cp -a "$src" "$debSrc"
  ln -s packaging/debian "$debSrc/debian"
  (cd "$debSrc" && DEB_BUILD_OPTIONS="$debOptions" SCHEDHOST_EXTRA_CMAKE_ARGS="$cmakeArgs" \
    dpkg-buildpackage -us -uc -b) \
    >"$out/deb-build.log" 2>&1 || {
    tail -n 40 "$out/deb-build.log" >&2
    echo "build-packages: dpkg-buildpackage failed; full log: $out/deb-build.log" >&2
    exit 1
  }
  mv "$work/deb"/*.deb "$out/"
  mv "$work/deb"/*.ddeb "$out/" 2>/dev/null || true
  mv "$work/deb"/*.buildinfo "$work/deb"/*.changes "$out/" 2>/dev/null || true
fi

if [[ " $formats " == *" rpm "* ]]; then
  echo "build-packages: RPM${optflags:+ (optflags '$optflags')}"
  top="$work/rpm"
  mkdir -p "$top/SOURCES"
  tar -C "$work" -czf "$top/SOURCES/schedhost-$version.tar.gz" "schedhost-$version"
  rpmArgs=(--define "_topdir $top" --define "_smp_mflags -j$jobs")
  if [ -n "$optflags" ]; then rpmArgs+=(--define "optflags $optflags"); fi
  if [ -n "$cmakeArgs" ]; then rpmArgs+=(--define "schedhost_cmake_args $cmakeArgs"); fi
  # The Packager tag is the build's to set (the %packager macro), not the spec's: these are
  # built by the project's maintainers, as debian/control's Maintainer says. PACKAGER overrides.
  rpmArgs+=(--define "packager ${PACKAGER:-schedhost maintainers <maintainers@schedhost.example.org>}")
  # --nodeps: BuildRequires name Fedora packages, which a Debian host's rpm database lacks.
  rpmbuild -bb --nodeps "${rpmArgs[@]}" "$src/packaging/rpm/schedhost.spec" \
    >"$out/rpm-build.log" 2>&1 || {
    tail -n 40 "$out/rpm-build.log" >&2
    echo "build-packages: rpmbuild failed; full log: $out/rpm-build.log" >&2
    exit 1
  }
  find "$top/RPMS" -name '*.rpm' -exec mv {} "$out/" \;
fi

echo "build-packages: done in $(($(date +%s) - start)) s:"
ls -1 "$out" | grep -E '\.(deb|rpm)$' | sed 's/^/  /'
