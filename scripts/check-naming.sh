#!/usr/bin/env bash
# Checks the C++ code of the build against the naming rules in .clang-tidy
# (readability-identifier-naming only) and fails when any is broken.
#
# Checked: every C++ source and header of host/, sdk/, plugins/, tests/ and bench/ that the
# build compiles, but the code that speaks the C ABI directly (tests' fixtures/ and hostile/
# libraries keep C's snake_case) and compile_fail/ sources (meant not to compile).
#
#   scripts/check-naming.sh BUILD_DIR [SOURCE_DIR]
#
# BUILD_DIR must hold compile_commands.json (every preset exports it). In a unity build (the
# ci and tsan presets) clang-tidy parses each unity translation unit once, the sources it
# includes and their headers together; in a build of one translation unit per source it
# parses each source but the test case files (*_test.cc), which would cost it seconds each of
# parsing gtest and Boost; their headers are checked wherever a checked source includes them.
# C sources are left out: the C ABI and the C test plugins keep C's names.
set -euo pipefail
build_dir=$(cd "$1" && pwd)
src_dir=$(cd "${2:-$(dirname "$0")/..}" && pwd)
tidy=${CLANG_TIDY:-clang-tidy}
command -v "$tidy" >/dev/null || { echo "check-naming: $tidy not found (Debian package clang-tidy)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# clang does not know some GCC-only flags the build uses.
sed -e 's/ -fno-gnu-unique//g; s/ -fgnu-unique//g' "$build_dir/compile_commands.json" > "$work/compile_commands.json"

ours="^$src_dir/(host|sdk|plugins|tests|bench)/"
exempt='/(fixtures|hostile|compile_fail)/'
grep -o '"file": *"[^"]*"' "$work/compile_commands.json" | sed -e 's/"file": *"//' -e 's/"$//' |
  {
    grep -E "^$build_dir/.*/Unity/unity_[0-9]+_cxx\.cxx$|${ours}.*\.cc$" || true
  } | grep -vE "$exempt" | grep -vE '^.*/tests/.*_test\.cc$' | sort -u > "$work/files"
count=$(wc -l < "$work/files")
if [ "$count" -eq 0 ]; then
  echo "check-naming: no C++ translation unit of ours in $build_dir/compile_commands.json" >&2
  exit 1
fi
echo "check-naming: $count translation units"

# -w: compiler warnings are the compiler's business. The header filter takes in the sources
# a unity translation unit includes; what is reported is filtered below, so clang-tidy's own
# status (every report is an error under WarningsAsErrors) is not what decides.
xargs -a "$work/files" -P "$(nproc)" -n 2 \
  "$tidy" -p "$work" --quiet --extra-arg=-w --header-filter="${ours}.*\.(h|hpp|cc)$" \
  > "$work/out" 2>&1 || true

# A source clang cannot parse is a failure wherever it is; a naming report counts in our code
# but the exempt folders.
grep -E '(error|warning): .*\[clang-diagnostic-error[],]|^error: ' "$work/out" | sort -u > "$work/broken" || true
grep -E '(error|warning): .*\[readability-identifier-naming[],]' "$work/out" |
  grep -E "$ours" | grep -vE "^[^:]*$exempt" | sort -u > "$work/violations" || true
if [ -s "$work/broken" ]; then
  cat "$work/broken" >&2
  echo "check-naming: clang-tidy could not parse the sources above" >&2
  exit 1
fi
if [ -s "$work/violations" ]; then
  cat "$work/violations" >&2
  echo "check-naming: violations of .clang-tidy's naming rules (above)" >&2
  exit 1
fi
echo "check-naming: clean"
