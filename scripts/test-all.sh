#!/usr/bin/env bash
# Builds and runs every test suite of CMakePresets.json: the `ci`, `tsan`, `packages` and
# `fuzz` workflows, each exactly as `cmake --workflow --preset NAME` runs it, and exits 1 when
# any of them fails. The README's test command; CI runs it.
#
#   scripts/test-all.sh [--serial]
#
# Much of a test run waits on timers, sockets and child processes, and leaves a core idle. So
# the other suites' builds run beside the ci tests, at the lowest CPU priority (nice 19), where
# they take only what the tests leave: the tsan and fuzz builds, and the packages workflow (two
# package builds of its own, then its checks), which goes on beside the tsan and fuzz tests. The
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

# Prints a step with the minutes and seconds since the start, so a run's log shows where its
# time went.
SECONDS=0
step() { printf 'test-all: [%02d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

# Runs "$@" in the background at the lowest priority, its output in $logs/$name.log; the pid
# is left in $background.
background=""
start_background() {
  local name=$1
  shift
  step "$name: started beside the tests (log: $logs/$name.log)"
  nice -n 19 "$@" > "$logs/$name.log" 2>&1 &
  background=$!
}

# Waits for a background step; records and prints it when it failed.
finish_background() {
  local name=$1 pid=$2
  if wait "$pid"; then
    step "$name: done"
  else
    step "$name: FAILED; its output:"
    cat "$logs/$name.log"
    failed+=("$name")
  fi
}

step "ci: configure and build"
cmake --preset ci
cmake --build --preset ci

start_background tsan-and-fuzz-builds sh -c \
  'cmake --preset tsan && cmake --build --preset tsan && cmake --preset fuzz && cmake --build --preset fuzz'
builds=$background
start_background packages cmake --workflow --preset packages
packages=$background
step "ci: tests"
ctest --preset ci || failed+=(ci)
step "ci: tests done"
finish_background tsan-and-fuzz-builds "$builds"

if [[ " ${failed[*]} " != *" tsan-and-fuzz-builds "* ]]; then
  step "tsan: tests"
  ctest --preset tsan || failed+=(tsan)
  step "fuzz: tests"
  ctest --preset fuzz || failed+=(fuzz)
fi
step "waiting for the packages workflow"
finish_background packages "$packages"

# A suite's failures scroll away behind the suites that run after it, so they are told again
# at the end: the failed tests' names, then one more run of just those tests with their output
# (the suite stays failed whatever that run says; a test that passes there is flaky).
report_failed_tests() {
  local preset=$1 list="build/$1/Testing/Temporary/LastTestsFailed.log"
  [ -s "$list" ] || return 0
  step "$preset: failed tests:"
  cat "$list"
  step "$preset: the failed tests once more, with their output"
  ctest --preset "$preset" --rerun-failed --output-on-failure || true
}

if [ ${#failed[@]} -ne 0 ]; then
  for preset in "${failed[@]}"; do
    case $preset in ci | tsan | fuzz) report_failed_tests "$preset" ;; esac
  done
  step "failed: ${failed[*]}"
  exit 1
fi
step "every suite passed"
