#!/bin/sh
# schedhost plugin new: the files of each skeleton, placeholders replaced; refusals.
#   plugin_new_test.sh SCHEDHOST WORKDIR
set -u
sh_bin=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
failures=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; failures=$((failures + 1)); fi; }

"$sh_bin" plugin new HTTPProbe --lang cpp --dir cpp >cpp.out 2>&1
check "cpp: exit 0" '[ $? = 0 ]'
for f in http_probe.cc CMakeLists.txt README.md test/basic.json; do
  check "cpp: wrote $f" "[ -s cpp/$f ]"
done
check "cpp: class and registration named HTTPProbe" \
  'grep -q "^class HTTPProbe " cpp/http_probe.cc && grep -q "SCHEDHOST_PLUGIN(HTTPProbe, \"HTTPProbe\"" cpp/http_probe.cc'
check "cpp: label key in kebab case" 'grep -q "example.com/http-probe" cpp/http_probe.cc'
check "cpp: find_package(schedhost-sdk <version>)" \
  'grep -Eq "^find_package\(schedhost-sdk [0-9]+\.[0-9]+\.[0-9]+ CONFIG REQUIRED\)" cpp/CMakeLists.txt'
check "cpp: plugin target http_probe" 'grep -q "schedhost_add_plugin(http_probe SOURCES http_probe.cc)" cpp/CMakeLists.txt'
check "cpp: scenario enables HTTPProbe and expects" \
  'grep -q "\"plugins\": \[{\"name\": \"HTTPProbe\"}\]" cpp/test/basic.json && grep -q "\"expect\"" cpp/test/basic.json'
check "cpp: no placeholder left" '! grep -rq "@[A-Z_]*@" cpp'

"$sh_bin" plugin new Gpu2Pack --lang c --dir c >c.out 2>&1
check "c: exit 0" '[ $? = 0 ]'
for f in gpu2_pack.c Makefile README.md test/basic.json; do
  check "c: wrote $f" "[ -s c/$f ]"
done
check "c: Makefile uses pkg-config schedhost-sdk" \
  'grep -q "pkg-config" c/Makefile && grep -q -- "--libs schedhost-sdk" c/Makefile'
check "c: Makefile recipe starts with a tab" 'grep -q "$(printf "^\t")" c/Makefile'
check "c: plugin name Gpu2Pack" 'grep -q "#define PLUGIN_NAME \"Gpu2Pack\"" c/gpu2_pack.c'
check "c: no placeholder left" '! grep -rq "@[A-Z_]*@" c'

# Default directory: the name in kebab case.
"$sh_bin" plugin new MyFilter >default.out 2>&1
check "default dir ./my-filter, C++" '[ -s my-filter/my_filter.cc ]'

refused() { # LABEL EXPECTED-TEXT ARGS...
  label=$1 text=$2; shift 2
  out=$("$sh_bin" plugin new "$@" 2>&1)
  code=$?
  check "$label: refused" '[ $code != 0 ]'
  check "$label: says why" 'echo "$out" | grep -qF -- "$text"'
}
refused "lower-case name" 'plugin name "myFilter" must start with an upper-case letter' myFilter --dir x1
refused "dash in name" "plugin name \"My-Filter\" holds '-'" My-Filter --dir x2
refused "underscore in name" "plugin name \"My_Filter\" holds '_'" My_Filter --dir x3
refused "existing non-empty dir" "cpp exists and is not empty" Other --dir cpp
refused "unknown language" "--lang" Other --lang go --dir x4
check "nothing written for refused names" '[ ! -e x1 ] && [ ! -e x2 ] && [ ! -e x3 ] && [ ! -e x4 ]'
touch afile
refused "target is a file" "afile exists and is not a directory" Other --dir afile
mkdir empty
"$sh_bin" plugin new Other --dir empty >/dev/null 2>&1
check "an existing empty dir is used" '[ -s empty/other.cc ]'

# Rust: a skeleton when this build embedded sdk/templates/rust/, else a clear refusal.
out=$("$sh_bin" plugin new RustOne --lang rust --dir rust 2>&1)
code=$?
if [ $code = 0 ]; then
  check "rust: Cargo.toml written, no placeholder left" '[ -s rust/Cargo.toml ] && ! grep -rq "@[A-Z_]*@" rust'
else
  check "rust: unavailable, said so" 'echo "$out" | grep -q "lang rust is unavailable"'
fi

[ $failures = 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "all checks passed"
