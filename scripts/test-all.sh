#!/usr/bin/env bash
# Builds and runs every test suite of CMakePresets.json: the `ci`, `tsan`, `fuzz` and
# `packages` workflows, each as `cmake --workflow --preset NAME` runs it, one after the other,
# and exits 1 when any of them fails. The README's test command; CI runs it.
#
#   scripts/test-all.sh
#
# The suites run in turn, each with both cores to itself: a test suite run beside another
# suite's build was measured 1.5 times slower on two cores (its timers and child processes
# waiting on a loaded machine), which cost more than the overlap saved. Each step's start is
# printed with the minutes since the start, so a run's log shows where its time went. Every
# suite runs even when one before it failed; a failed suite's failing tests are listed at the
# end, then run once more with their output (they scroll away behind the suites after them).
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS=0
step() { printf 'test-all: [%02d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

failed=()
for preset in ci tsan fuzz packages; do
  step "$preset: configure, build, test"
  if ! cmake --workflow --preset "$preset"; then
    failed+=("$preset")
    step "$preset: FAILED"
  fi
done

# The failed tests of a failed suite, by name, then once more with their output (the suite
# stays failed whatever that run says; a test that passes there is flaky).
report_failed_tests() {
  local preset=$1 dir=build/$1
  [ "$preset" = packages ] && dir=build/packaging  # the preset's binaryDir
  local list="$dir/Testing/Temporary/LastTestsFailed.log"
  [ -s "$list" ] || return 0
  step "$preset: failed tests:"
  cat "$list"
  # A package test's rerun would build the packages again (its fixture): its output above
  # is what there is.
  [ "$preset" != packages ] || return 0
  step "$preset: the failed tests once more, with their output"
  ctest --preset "$preset" --rerun-failed --output-on-failure || true
}

if [ ${#failed[@]} -ne 0 ]; then
  for preset in "${failed[@]}"; do
    report_failed_tests "$preset"
  done
  step "failed: ${failed[*]}"
  exit 1
fi
step "every suite passed"
