#!/usr/bin/env bash
# Builds and runs every test suite of CMakePresets.json: the `ci`, `tsan`, `packages` and
# `fuzz` workflows, each exactly as `cmake --workflow --preset NAME` runs it, and exits 1 when
# any of them fails. The README's test command; CI runs it.
#
#   scripts/test-all.sh [--serial]
#
# Much of a test run waits on timers, sockets and child processes, and leaves a core idle. So
# the next suite's build runs beside the current suite's tests, at the lowest CPU priority
# (nice 19), where it takes only what the tests leave: the tsan and fuzz builds beside the ci
# tests, the packages workflow (a build of its own, then its checks) beside the tsan tests. The
# tests themselves are never run beside each other's suites. --serial runs the four workflows
# one after the other instead.
#
# Each background step writes its output to build/test-all/NAME.log, printed when it fails.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--serial" ]; then
  status=0
  for preset in ci tsan packages fuzz; do
    cmake --workflow --preset "$preset" || status=1
  done
  exit $status
fi

logs=build/test-all
mkdir -p "$logs"
failed=()

# Runs "$@" in the background at the lowest priority, its output in $logs/$name.log; the pid
# is left in $background.
background=""
start_background() {
  local name=$1
  shift
  echo "test-all: $name: started beside the tests (log: $logs/$name.log)"
  nice -n 19 "$@" > "$logs/$name.log" 2>&1 &
  background=$!
}

# Waits for a background step; records and prints it when it failed.
finish_background() {
  local name=$1 pid=$2
  if wait "$pid"; then
    echo "test-all: $name: done"
  else
    echo "test-all: $name: FAILED; its output:"
    cat "$logs/$name.log"
    failed+=("$name")
  fi
}

cmake --preset ci
cmake --build --preset ci

start_background tsan-and-fuzz-builds sh -c \
  'cmake --preset tsan && cmake --build --preset tsan && cmake --preset fuzz && cmake --build --preset fuzz'
builds=$background
ctest --preset ci || failed+=(ci)
finish_background tsan-and-fuzz-builds "$builds"

start_background packages cmake --workflow --preset packages
packages=$background
if [[ " ${failed[*]} " != *" tsan-and-fuzz-builds "* ]]; then
  ctest --preset tsan || failed+=(tsan)
  ctest --preset fuzz || failed+=(fuzz)
fi
finish_background packages "$packages"

if [ ${#failed[@]} -ne 0 ]; then
  echo "test-all: failed: ${failed[*]}"
  exit 1
fi
echo "test-all: every suite passed"
