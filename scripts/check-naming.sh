#!/usr/bin/env bash
# Checks the C++ translation units of the build against the naming rules in .clang-tidy
# (readability-identifier-naming only) and fails on the first violation it reports.
#
# Checked: every translation unit of host/, sdk/, plugins/ and bench/, and the test code that
# other tests build on (support libraries, test plugins, fuzz harnesses). Test case files
# (*_test.cc) are not parsed on their own: each costs clang-tidy seconds of parsing gtest and
# Boost, and together they doubled the CI's test step; the headers they include are checked
# wherever a checked translation unit includes them.
#
#   scripts/check-naming.sh BUILD_DIR [SOURCE_DIR]
#
# BUILD_DIR must hold compile_commands.json (every preset exports it). C sources are left
# out: the C ABI and the C test plugins keep C's snake_case, and so do the C++ test libraries
# that speak the C ABI directly.
set -euo pipefail
build_dir=$(cd "$1" && pwd)
src_dir=$(cd "${2:-$(dirname "$0")/..}" && pwd)
tidy=${CLANG_TIDY:-clang-tidy}
command -v "$tidy" >/dev/null || { echo "check-naming: $tidy not found (Debian package clang-tidy)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# clang does not know some GCC-only flags the build uses.
sed -e 's/ -fno-gnu-unique//g; s/ -fgnu-unique//g' "$build_dir/compile_commands.json" > "$work/compile_commands.json"

grep -o '"file": *"[^"]*"' "$work/compile_commands.json" | sed -e 's/"file": *"//' -e 's/"$//' |
  grep -E "^$src_dir/(host|sdk|plugins|tests|bench)/.*\.cc$" |
  # Plugins written against the C ABI alone (test fixtures and hostile libraries) keep C
  # names; compile_fail sources are meant not to compile.
  grep -vE "/(fixtures|hostile|compile_fail)/" | grep -vE '^.*/tests/.*_test\.cc$' |
  sort -u > "$work/files"
echo "check-naming: $(wc -l < "$work/files") translation units"

# -w: compiler warnings are the compiler's business; only the naming check reports here.
if ! xargs -a "$work/files" -P "$(nproc)" -n 4 \
       "$tidy" -p "$work" --quiet --extra-arg=-w > "$work/out" 2>&1; then
  grep -E 'error:' "$work/out" | sort -u >&2 || cat "$work/out" >&2
  echo "check-naming: violations of .clang-tidy's naming rules (above)" >&2
  exit 1
fi
echo "check-naming: clean"
