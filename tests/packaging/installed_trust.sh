#!/usr/bin/env bash
# The plugin trust rules on the installed layout, as the packaged unit runs the host: the
# `schedhost` and `schedhost-plugins` packages extracted into a root, the host run under the
# unit's User= (the `schedhost` user when it exists on this machine, else `nobody`: the rules
# only ask whose files they are, and a service user owns none of the packaged ones).
#
#   installed_trust.sh PACKAGES_DIR WORK_DIR
#
# WORK_DIR must lie in the build tree (root-owned, not world-writable up to /). Needs root:
# the host is started as the unit's user with setpriv, and files are given to other users.
set -uo pipefail
packages=$1 work=$2
if [ "$(id -u)" -ne 0 ]; then
  echo "installed_trust: needs root (setpriv to the unit's user, chown)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work" || exit 2
root=$work/root
for pkg in schedhost schedhost-plugins; do
  deb=$(ls "$packages"/${pkg}_*.deb 2>/dev/null | head -n 1)
  [ -n "$deb" ] || { echo "installed_trust: no ${pkg}_*.deb in $packages"; exit 2; }
  dpkg-deb -x "$deb" "$root" || exit 2
done

failures=0 passes=0
pass() { echo "ok   $*"; passes=$((passes + 1)); }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

unit=$(find "$root" -name schedhost.service | head -n 1)
unitUser=$(sed -n 's/^User=//p' "$unit")
[ "$unitUser" = schedhost ] && pass "the unit runs as User=schedhost" || fail "unit User=$unitUser"
runAs=$unitUser
id -u "$runAs" >/dev/null 2>&1 || runAs=nobody
asUnit() { setpriv --reuid="$runAs" --regid="$(id -g "$runAs")" --clear-groups "$@"; }
echo "running the host as $runAs"

host=$root/usr/bin/schedhost
pluginDir=$(find "$root" -type d -path '*/schedhost/plugins' | head -n 1)
count=$(ls "$pluginDir"/*.so | wc -l)

# 1. The packaged plugins (root-owned, mode 0644, in 0755 directories) all load.
out=$(asUnit "$host" plugin list --plugin-dir "$pluginDir" 2>&1)
status=$?
listed=$(echo "$out" | grep -c $'\t')
if [ $status -eq 0 ] && [ "$listed" -eq "$count" ] && ! echo "$out" | grep -q refused; then
  pass "the $count packaged plugins load as $runAs"
else
  fail "packaged plugins: $listed of $count listed"; echo "$out"
fi

# 2. A plugin file another user owns is refused, naming the file, the rule and the fix.
mkdir -p "$work/foreign" && chmod 0755 "$work/foreign"
one=$(ls "$pluginDir"/*.so | head -n 1)
cp "$one" "$work/foreign/" && chown 4242 "$work/foreign/$(basename "$one")"
out=$(asUnit "$host" plugin list --plugin-dir "$work/foreign" 2>&1)
if echo "$out" | grep -q "refused: the file is owned by uid 4242" &&
   echo "$out" | grep -q "$work/foreign/$(basename "$one")" &&
   echo "$out" | grep -q "chown root"; then
  pass "a file owned by uid 4242 is refused with the rule and the fix"
else
  fail "foreign-owned file"; echo "$out"
fi

# 3. A file the unit's own user owns is accepted (the process's user).
mkdir -p "$work/own" && chmod 0755 "$work/own"
cp "$one" "$work/own/" && chown "$runAs" "$work/own/$(basename "$one")"
out=$(asUnit "$host" plugin list --plugin-dir "$work/own" 2>&1)
if echo "$out" | grep -q $'\t' && ! echo "$out" | grep -q refused; then
  pass "a file owned by $runAs loads"
else
  fail "file owned by the unit's user"; echo "$out"
fi

# 4. A world-writable plugin directory is refused; the development flag loads it, loudly.
mkdir -p "$work/open" && cp "$one" "$work/open/" && chmod 0777 "$work/open"
out=$(asUnit "$host" plugin list --plugin-dir "$work/open" 2>&1)
if echo "$out" | grep -q "world-writable (mode 0777)"; then
  pass "a world-writable plugin directory is refused"
else
  fail "world-writable directory"; echo "$out"
fi
out=$(asUnit "$host" plugin list --plugin-dir "$work/open" --insecure-plugin-permissions 2>&1)
if echo "$out" | grep -q "WARNING: --insecure-plugin-permissions" && echo "$out" | grep -q $'\t'; then
  pass "--insecure-plugin-permissions loads it and says so"
else
  fail "development flag"; echo "$out"
fi

echo "$passes passed, $failures failed"
[ $failures -eq 0 ]
