#!/bin/sh
# The plugin vendor's path, from an installed SDK and nothing else.
#
#   vendor_path.sh --debs DIR [--work DIR]   extract every DIR/*.deb into WORK/root first
#   vendor_path.sh --root DIR [--work DIR]   use an already unpacked root (DIR/usr/...)
#
# Using only what is under the root (headers, the CMake package, the pkg-config file, the
# examples, the Rust crate, usr/bin/schedhost and the default plugins) it builds, out of tree
# in WORK:
#   hello         C++, CMake find_package(schedhost-sdk)      CMAKE_PREFIX_PATH=ROOT/usr
#   c-hello       C99, make + pkg-config                       PKG_CONFIG_SYSROOT_DIR=ROOT
#   rust-hello    Rust, cargo --offline, crate from the root   (when the root ships it)
#   coscheduling  C++, CMake, a third party's own project: examples/coscheduling of this source
#                 tree (not shipped in the root), with its unit tests when GoogleTest is there
# then runs the root's schedhost on each example's test/basic.json (coscheduling: every file of
# its scenarios/) with the default plugins and the example's plugin, and checks the
# expectations the scenario carries.
#
# WORK defaults to build/vendor-path in the source tree. It must not be under /tmp: the host
# refuses plugins whose directories anyone may write to.
#
# A root without packages, from a build tree:
#   cmake --install build/dev --prefix "$PWD/build/vendor-root/usr"
#   tests/packaging/vendor/vendor_path.sh --root build/vendor-root
set -u

here=$(cd "$(dirname "$0")" && pwd)
debs= root= work=
while [ $# -gt 0 ]; do
  case $1 in
    --debs) debs=$2; shift 2 ;;
    --root) root=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "vendor_path.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ -z "$debs" ] && [ -z "$root" ]; then
  echo "vendor_path.sh: give --debs DIR or --root DIR (see --help)" >&2
  exit 2
fi
[ -n "$work" ] || work=$here/../../../build/vendor-path
mkdir -p "$work" && work=$(cd "$work" && pwd)
case $work/ in /tmp/*) echo "vendor_path.sh: warning: $work is under /tmp; the host may refuse plugins there" >&2 ;; esac

failures=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
die() { echo "vendor_path.sh: $*" >&2; exit 1; }

# --- the root --------------------------------------------------------------------------------
if [ -n "$debs" ]; then
  root=$work/root
  rm -rf "$root" && mkdir -p "$root"
  found=0
  for deb in "$debs"/*.deb; do
    [ -e "$deb" ] || continue
    dpkg-deb -x "$deb" "$root" || die "$deb: dpkg-deb -x failed"
    echo "extracted $(basename "$deb")"
    found=1
  done
  [ $found = 1 ] || die "$debs: no .deb files (build the packages first)"
fi
[ -d "$root/usr" ] || die "$root: no usr/ under the root"
root=$(cd "$root" && pwd)

host=$root/usr/bin/schedhost
[ -x "$host" ] || die "$host: missing: the root has no schedhost"
pc=$(find "$root/usr" -name schedhost-sdk.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || die "$root: no schedhost-sdk.pc"
defaults=$(find "$root/usr" -type d -path '*/schedhost/plugins' | head -n 1)
[ -n "$defaults" ] || die "$root: no schedhost/plugins directory (default plugins)"
examples=$root/usr/share/schedhost/examples
[ -d "$examples" ] || die "$examples: missing"
# Nothing outside the root: no plugin dirs from the environment, no user package registry.
unset SCHEDHOST_PLUGIN_DIRS

scratch=$work/build
rm -rf "$scratch" && mkdir -p "$scratch"

# Runs a scenario with the root's host, the default plugins and DIR; checks its "expect".
# `schedhost test` does the comparison when the host has it; otherwise evaluate's JSON is
# compared here with jq (same partial-match rules), or only "selected" without jq.
check_scenario() { # NAME DIR SCENARIO
  name=$1 dir=$2 scenario=$3
  if "$host" --help 2>&1 | grep -Eq '^ +test( |$)'; then
    if out=$("$host" test "$scenario" --plugin-dir "$defaults" --plugin-dir "$dir" 2>&1); then
      pass "$name: schedhost test: $(echo "$out" | tail -n 1)"
    else
      fail "$name: schedhost test $scenario:"; echo "$out"
    fi
    return
  fi
  if ! got=$("$host" evaluate --compact --scenario "$scenario" --plugin-dir "$defaults" \
               --plugin-dir "$dir" 2>&1); then
    fail "$name: schedhost evaluate $scenario:"; echo "$got"; return
  fi
  if command -v jq >/dev/null 2>&1; then
    # expected ⊆ got: objects by key, arrays element by element, a filter's {"code":
    # "Success"} also matching an omitted entry.
    if echo "$got" | jq -e --slurpfile s "$scenario" '
        def sub($a; $b):
          if ($a | type) == "object" then
            ($a == {"code": "Success"} and $b == null) or
            (($b | type) == "object" and all($a | to_entries[]; sub(.value; $b[.key])))
          elif ($a | type) == "array" then
            ($b | type) == "array" and ($a | length) == ($b | length) and
            all(range(0; $a | length); sub($a[.]; $b[.]))
          else $a == $b end;
        sub($s[0].expect; .)' >/dev/null; then
      pass "$name: evaluate output matches the scenario's expectations"
    else
      fail "$name: evaluate output does not match the expectations of $scenario:"; echo "$got"
    fi
    return
  fi
  want=$(tr -d '\n ' < "$scenario" | sed -n 's/.*"expect":{"selected":\("[^"]*"\|null\).*/\1/p')
  case $got in
    *"\"selected\":$want"*) pass "$name: selected $want (jq missing: only selected checked)" ;;
    *) fail "$name: expected selected $want:"; echo "$got" ;;
  esac
}

# Loads FILE with the root's host: metadata readable, plugin named NAME.
check_inspect() { # LABEL FILE NAME
  if out=$("$host" plugin inspect --json "$2" 2>&1) && echo "$out" | grep -q "\"name\": \"$3\""; then
    pass "$1: schedhost plugin inspect $(basename "$2"): $3"
  else
    fail "$1: schedhost plugin inspect $2:"; echo "$out"
  fi
}

# --- hello: C++ with CMake -------------------------------------------------------------------
src=$scratch/hello
cp -r "$examples/hello" "$src"
if cmake -S "$src" -B "$src/build" -DCMAKE_PREFIX_PATH="$root/usr" \
     -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_BUILD_TYPE=Release >"$src/configure.log" 2>&1 &&
   cmake --build "$src/build" >"$src/build.log" 2>&1; then
  sdk_dir=$(sed -n 's/^schedhost-sdk_DIR:PATH=//p' "$src/build/CMakeCache.txt")
  case $sdk_dir in
    "$root"/*) pass "hello: built with find_package(schedhost-sdk) from $sdk_dir" ;;
    *) fail "hello: found schedhost-sdk outside the root: $sdk_dir" ;;
  esac
  check_inspect hello "$src/build/libplugin_hello.so" Hello
  check_scenario hello "$src/build" "$src/test/basic.json"
else
  fail "hello: CMake build failed:"; cat "$src/configure.log" "$src/build.log" 2>/dev/null
fi

# --- c-hello: C with make and pkg-config -----------------------------------------------------
src=$scratch/c-hello
cp -r "$examples/c-hello" "$src"
pcdir=$(dirname "$pc")
if (cd "$src" && PKG_CONFIG_PATH=$pcdir PKG_CONFIG_LIBDIR=$pcdir PKG_CONFIG_SYSROOT_DIR=$root \
      make) >"$src/build.log" 2>&1; then
  pass "c-hello: built with make and pkg-config ($(basename "$pc"), abi \
$(PKG_CONFIG_LIBDIR=$pcdir PKG_CONFIG_SYSROOT_DIR=$root pkg-config --variable=abi schedhost-sdk))"
  check_inspect c-hello "$src/libplugin_c_hello.so" CHello
  check_scenario c-hello "$src" "$src/test/basic.json"
else
  fail "c-hello: make failed:"; cat "$src/build.log"
fi

# --- rust-hello: Rust with cargo, the crate from the root ------------------------------------
if [ -d "$examples/rust-hello" ]; then
  crate=$(find "$root/usr/share/cargo/registry" -maxdepth 1 -type d -name 'schedhost-sdk-*' \
          2>/dev/null | head -n 1)
  cargo=${CARGO:-cargo}
  if ! command -v "$cargo" >/dev/null 2>&1; then
    echo "SKIP rust-hello: cargo is not installed"
  elif [ -z "$crate" ]; then
    fail "rust-hello: the root ships the example but no crate under usr/share/cargo/registry"
  else
    src=$scratch/rust-hello
    cp -r "$examples/rust-hello" "$src"
    # The example's path dependency points into the source tree; here it is the root's crate.
    sed -i -E "s|^(schedhost-sdk *= *\{.*path *= *)\"[^\"]*\"|\1\"$crate\"|" "$src/Cargo.toml"
    if ! grep -q "path *= *\"$crate\"" "$src/Cargo.toml"; then
      fail "rust-hello: Cargo.toml has no path dependency schedhost-sdk to point at $crate"
    elif (cd "$src" && CARGO_TARGET_DIR=$src/target "$cargo" build --offline --release) \
           >"$src/build.log" 2>&1; then
      lib=$(find "$src/target/release" -maxdepth 1 -name 'lib*.so' | head -n 1)
      pass "rust-hello: built with cargo --offline against $(basename "$crate")"
      mkdir -p "$src/plugins" && cp "$lib" "$src/plugins/"
      if [ -f "$src/test/basic.json" ]; then
        check_scenario rust-hello "$src/plugins" "$src/test/basic.json"
      else
        fail "rust-hello: no test/basic.json"
      fi
    else
      fail "rust-hello: cargo build failed:"; cat "$src/build.log"
    fi
  fi
else
  echo "SKIP rust-hello: the root ships no rust-hello example"
fi

# --- coscheduling: a vendor's own C++ project, against the root's SDK ------------------------
src=$scratch/coscheduling
cp -r "$here/../../../examples/coscheduling" "$src"
if cmake -S "$src" -B "$src/build" -DCMAKE_PREFIX_PATH="$root/usr" \
     -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_BUILD_TYPE=Release >"$src/configure.log" 2>&1 &&
   cmake --build "$src/build" >"$src/build.log" 2>&1; then
  sdk_dir=$(sed -n 's/^schedhost-sdk_DIR:PATH=//p' "$src/build/CMakeCache.txt")
  case $sdk_dir in
    "$root"/*) pass "coscheduling: built with find_package(schedhost-sdk) from $sdk_dir" ;;
    *) fail "coscheduling: found schedhost-sdk outside the root: $sdk_dir" ;;
  esac
  check_inspect coscheduling "$src/build/libcoscheduling.so" Coscheduling
  if [ -x "$src/build/coscheduling_test" ]; then
    if out=$("$src/build/coscheduling_test" 2>&1); then
      pass "coscheduling: unit tests: $(echo "$out" | tail -n 1)"
    else
      fail "coscheduling: unit tests:"; echo "$out"
    fi
  else
    echo "SKIP coscheduling unit tests: GoogleTest is not installed"
  fi
  for scenario in "$src"/scenarios/*.json; do
    check_scenario "coscheduling $(basename "$scenario")" "$src/build" "$scenario"
  done
else
  fail "coscheduling: CMake build failed:"; cat "$src/configure.log" "$src/build.log" 2>/dev/null
fi

if [ $failures -gt 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "vendor path: all checks passed"
