#!/bin/sh
# Runs cargo for a Rust SDK test, offline and inside the build tree:
#
#   cargo.sh CARGO WORK_DIR [--copy-plugin LIB DEST] -- CARGO_ARGS...
#
# CARGO_HOME and CARGO_TARGET_DIR live under WORK_DIR, so nothing touches ~/.cargo and the
# build products stay in the build tree. With --copy-plugin, the cdylib LIB (a file name under
# the target's debug/ folder) is then put into the folder DEST, by rename, as plugin files are
# replaced (docs/plugin-loading.md). Exits 77 (the tests' SKIP_RETURN_CODE) when no cargo was
# found at configure time.
set -eu
cargo=$1
work=$2
shift 2
lib=
dest=
if [ "${1:-}" = "--copy-plugin" ]; then
  lib=$2
  dest=$3
  shift 3
fi
[ "${1:-}" = "--" ] && shift
if [ ! -x "$cargo" ]; then
  echo "cargo not found ($cargo): Rust SDK test skipped"
  exit 77
fi
export CARGO_HOME="$work/cargo-home"
export CARGO_TARGET_DIR="$work/target"
mkdir -p "$CARGO_HOME"
"$cargo" "$@" --offline
if [ -n "$lib" ]; then
  mkdir -p "$dest"
  cp "$CARGO_TARGET_DIR/debug/$lib" "$dest/.$lib.new"
  mv -f "$dest/.$lib.new" "$dest/$lib"
  echo "plugin: $dest/$lib"
fi
