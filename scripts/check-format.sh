#!/usr/bin/env bash
# Fails when a C++ source differs from what clang-format makes of it (.clang-format at the
# root). The C ABI header and the C sources keep their hand layout.
#
#   scripts/check-format.sh [SOURCE_DIR]        check
#   scripts/check-format.sh --fix [SOURCE_DIR]  reformat in place
set -euo pipefail
fix=0
if [ "${1:-}" = "--fix" ]; then fix=1; shift; fi
src_dir=$(cd "${1:-$(dirname "$0")/..}" && pwd)
fmt=${CLANG_FORMAT:-clang-format}
command -v "$fmt" >/dev/null || { echo "check-format: $fmt not found (Debian package clang-format)" >&2; exit 2; }

cd "$src_dir"
mapfile -t files < <(find host sdk plugins tests bench \
  \( -name '*.cc' -o -name '*.h' -o -name '*.hpp' \) \
  ! -path 'sdk/include/schedhost/plugin.h' ! -path 'tests/sdk/abi_1_1/include/*' \
  ! -path 'tests/sdk/abi_1_2/include/*' ! -path 'tests/sdk/abi_1_3/include/*' \
  ! -path 'tests/loader/fixtures/*' \
  ! -path 'tests/sdk/hostile/*' ! -path 'tests/plugin/fixtures/*' | sort)
if [ "$fix" = 1 ]; then
  "$fmt" -i "${files[@]}"
  exit 0
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! "$fmt" --dry-run --Werror "${files[@]}" 2> "$out"; then
  grep -E '^[^ ].*(error|warning):' "$out" | sed -E 's/:[0-9]+:[0-9]+: (error|warning): .*//' |
    sort -u >&2
  echo "check-format: the files above differ from clang-format's layout;" \
       "scripts/check-format.sh --fix reformats them" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files clean"
