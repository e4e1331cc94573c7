#!/bin/sh
# The skeletons of `schedhost plugin new` build against the SDK as installed from this build
# tree (cmake --install --component sdk) and load in the host.
#   plugin_new_build.sh SCHEDHOST BUILD_DIR WORKDIR DEFAULT_PLUGIN_DIR
# WORKDIR must be in the build tree: the host refuses plugins under world-writable /tmp.
set -u
sh_bin=$1 build=$2 work=$3 defaults=$4
rm -rf "$work" && mkdir -p "$work" || exit 2
failures=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

sdk=$work/sdk
cmake --install "$build" --component sdk --prefix "$sdk" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; exit 1; }
pcdir=$(dirname "$(find "$sdk" -name schedhost-sdk.pc | head -n 1)")

# Loads the library and runs the skeleton's own scenario: the pod avoids the labelled node.
load() { # LABEL LIBRARY NAME SCENARIO
  if out=$("$sh_bin" plugin inspect --json "$2" 2>&1) && echo "$out" | grep -q "\"name\": \"$3\""; then
    pass "$1: plugin inspect finds $3"
  else
    fail "$1: plugin inspect $2"; echo "$out"
  fi
  out=$("$sh_bin" evaluate --compact --scenario "$4" --plugin-dir "$defaults" \
          --plugin-dir "$(dirname "$2")" 2>&1)
  case $out in
    *"\"$3\":{\"code\":\"Unschedulable\""*'"selected":"n2"'*) pass "$1: scenario: n1 avoided, n2 selected" ;;
    *) fail "$1: scenario $4"; echo "$out" ;;
  esac
}

cd "$work" || exit 2
"$sh_bin" plugin new CppSkeleton --lang cpp --dir cpp >/dev/null || fail "cpp: plugin new"
if cmake -S cpp -B cpp/build -DCMAKE_PREFIX_PATH="$sdk" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
     >cpp.log 2>&1 && cmake --build cpp/build >>cpp.log 2>&1; then
  pass "cpp: built with find_package(schedhost-sdk)"
  load cpp "$work/cpp/build/libcpp_skeleton.so" CppSkeleton "$work/cpp/test/basic.json"
else
  fail "cpp: build"; cat cpp.log
fi

"$sh_bin" plugin new CSkeleton --lang c --dir c >/dev/null || fail "c: plugin new"
if (cd c && PKG_CONFIG_PATH=$pcdir make CFLAGS="-O2 -Werror") >c.log 2>&1; then
  pass "c: built with make and pkg-config, no warning"
  load c "$work/c/libc_skeleton.so" CSkeleton "$work/c/test/basic.json"
else
  fail "c: build"; cat c.log
fi

[ $failures = 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "all checks passed"
