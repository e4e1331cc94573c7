#!/bin/sh
# examples/coscheduling built the way its README says a vendor builds it: the SDK installed
# from this build tree into a scratch prefix (component sdk only), the example configured
# against that prefix alone, its unit tests run, and its scenarios checked by this tree's
# schedhost with the default plugins.
#
#   coscheduling.sh BUILD_DIR SOURCE_DIR SCHEDHOST DEFAULT_PLUGIN_DIR WORK
#
# WORK must not be under /tmp: the host refuses plugins whose directories anyone may write to.
set -eu
build=$1 src=$2 schedhost=$3 plugins=$4 work=$5

rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --component sdk --prefix "$work/prefix" >"$work/install.log"
# CMAKE_FIND_USE_PACKAGE_REGISTRY=OFF: only the scratch prefix may provide schedhost-sdk.
cmake -S "$src/examples/coscheduling" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_BUILD_TYPE=Release >"$work/configure.log"
sdk_dir=$(sed -n 's/^schedhost-sdk_DIR:PATH=//p' "$work/build/CMakeCache.txt")
case $sdk_dir in
  "$work/prefix"/*) echo "schedhost-sdk from $sdk_dir" ;;
  *) echo "FAIL: schedhost-sdk found outside the scratch prefix: $sdk_dir"; exit 1 ;;
esac
cmake --build "$work/build" >"$work/build.log"
if [ -x "$work/build/coscheduling_test" ]; then
  "$work/build/coscheduling_test" --gtest_brief=1
fi
"$schedhost" test "$src/examples/coscheduling/scenarios" --plugin-dir "$plugins" \
  --plugin-dir "$work/build"
