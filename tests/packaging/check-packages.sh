#!/usr/bin/env bash
# Checks the packages scripts/build-packages.sh built (tests/packaging/CMakeLists.txt).
#   check-packages.sh CHECK PACKAGES_DIR SOURCE_DIR
# Each check prints what it found and exits non-zero on the first thing that is wrong.
set -euo pipefail
check=$1 pkgs=$2 src=$3
scratch=$(mktemp -d "${pkgs%/}.check.XXXXXX" 2>/dev/null || mktemp -d)
trap 'rm -rf "$scratch"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
one() { # the single file matching a glob
  local matches=($1)
  [ ${#matches[@]} -eq 1 ] && [ -e "${matches[0]}" ] || fail "expected one file matching $1, found: ${matches[*]}"
  echo "${matches[0]}"
}
deb() { one "$pkgs/$1_*.deb"; }
rpmOf() { one "$pkgs/$1-[0-9]*.rpm"; }
contains() { # contains WHAT TEXT LABEL
  grep -qF -- "$1" <<<"$2" || fail "$3: no '$1' in:"$'\n'"$2"
}

# Warnings a package keeps are listed in docs/packaging.md as "- lintian `tag`" or
# "- rpmlint `check`", each with its reason; anything else fails.
keptTags() { sed -n "s/^- $1 \`\\([a-z0-9-]*\\)\`.*/\\1/p" "$src/docs/packaging.md"; }

case "$check" in
lintian)
  kept=$(keptTags lintian)
  status=0
  for f in "$pkgs"/*.deb; do
    out=$(lintian --no-cfg --display-level '>=warning' "$f" 2>&1 || true)
    echo "lintian $(basename "$f"): ${out:-clean}"
    while read -r line; do
      [ -z "$line" ] && continue
      tag=$(awk '{print $3}' <<<"$line")
      case "$line" in
        E:*) echo "  error: $line" >&2; status=1 ;;
        W:*) grep -qxF "$tag" <<<"$kept" || { echo "  warning not listed in docs/packaging.md: $line" >&2; status=1; } ;;
      esac
    done <<<"$out"
  done
  exit $status
  ;;

rpmlint)
  rc="$src/packaging/rpm/schedhost.rpmlintrc"
  # Every filter of the rpmlintrc is a kept warning, and docs/packaging.md gives its reason.
  for tag in $(sed -n 's/^addFilter("[^ ]* *\([a-z0-9-]*\).*/\1/p' "$rc"); do
    keptTags rpmlint | grep -qxF "$tag" || fail "rpmlintrc filters $tag, which docs/packaging.md does not list"
  done
  out=$(rpmlint -c "$src/packaging/rpm/rpmlint.toml" -r "$rc" "$pkgs"/*.rpm 2>&1 || true)
  echo "$out"
  summary=$(grep -E '[0-9]+ errors?, [0-9]+ warnings?' <<<"$out" | tail -1)
  [ -n "$summary" ] || fail "no rpmlint summary line"
  [[ "$summary" =~ ([0-9]+)\ errors?,\ ([0-9]+)\ warnings? ]] || fail "unreadable summary: $summary"
  [ "${BASH_REMATCH[1]}" -eq 0 ] && [ "${BASH_REMATCH[2]}" -eq 0 ] || fail "rpmlint: $summary"
  ;;

unit-security)
  unit="$src/packaging/systemd/schedhost.service"
  out=$(systemd-analyze security --offline=true "$unit" 2>&1 || true)
  line=$(grep 'Overall exposure level' <<<"$out") || fail "no score in:"$'\n'"$out"
  score=$(sed -n 's/.*: \([0-9]*\.[0-9]*\) .*/\1/p' <<<"$line")
  echo "$line"
  # 2.0 or lower is what systemd-analyze calls "OK" at its best; compare in tenths.
  [ -n "$score" ] || fail "unreadable score: $line"
  tenths=$(awk -v s="$score" 'BEGIN { printf "%d", s * 10 + 0.5 }')
  [ "$tenths" -le 20 ] || fail "exposure $score is above 2.0"
  ;;

man-page)
  # The packaged page against the packaged binary: every line each command's --help prints
  # is in the page, and every option the page documents is one a --help prints.
  dpkg-deb -x "$(deb schedhost)" "$scratch/root"
  bin="$scratch/root/usr/bin/schedhost"
  page="$scratch/schedhost.1"
  zcat "$scratch/root/usr/share/man/man1/schedhost.1.gz" >"$page"
  man --warnings -l "$page" >/dev/null 2>"$scratch/warnings" || true
  [ ! -s "$scratch/warnings" ] || fail "man page warnings: $(cat "$scratch/warnings")"
  text=$(sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/^\\&//' "$page")
  helps="$scratch/helps"
  : >"$helps"
  pending=("")
  while [ ${#pending[@]} -gt 0 ]; do
    cmd=${pending[0]}; pending=("${pending[@]:1}")
    # shellcheck disable=SC2086
    help=$("$bin" $cmd --help)
    echo "$help" >>"$helps"
    while IFS= read -r line; do
      case "$line" in "" | Usage:*) continue ;; esac
      grep -qxF -- "$line" <<<"$text" || fail "'schedhost $cmd --help' prints a line the man page lacks: $line"
    done <<<"$help"
    for sub in $(awk '/^Subcommands:/{f=1;next} f&&/^  [a-z]/{print $1;next} f&&/^[^ ]/{f=0}' <<<"$help"); do
      pending+=("${cmd:+$cmd }$sub")
    done
    echo "schedhost ${cmd:-(top)}: --help matches the page"
  done
  for opt in $(grep -oE -- '--[a-z][a-z-]*' <<<"$text" | sort -u); do
    grep -qF -- "$opt" "$helps" || fail "the man page documents $opt, which no --help prints"
  done
  ;;

deb-metadata)
  host=$(deb schedhost)
  fields=$(dpkg-deb -f "$host")
  contains "Provides: schedhost-plugin-abi-1" "$fields" "schedhost control"
  dpkg-deb -e "$host" "$scratch/ctl"
  conffiles=$(cat "$scratch/ctl/conffiles")
  contains "/etc/schedhost/schedhost.toml" "$conffiles" "schedhost conffiles"
  contains "/etc/schedhost/profiles.d/default.toml" "$conffiles" "schedhost conffiles"
  contains "systemd-sysusers" "$(cat "$scratch/ctl/postinst")" "postinst creates the user"
  contains "schedhost.conf" "$(cat "$scratch/ctl/postinst")" "postinst creates the user"
  contains "deb-systemd-invoke stop" "$(cat "$scratch/ctl/prerm")" "prerm stops the service"
  contains "rm -rf /var/lib/schedhost" "$(cat "$scratch/ctl/postrm")" "postrm purges the state"
  files=$(dpkg-deb -c "$host" | awk '{print $6}')
  for f in ./usr/bin/schedhost ./usr/bin/kubectl-schedhost \
           ./usr/share/man/man1/kubectl-schedhost.1.gz ./lib/systemd/system/schedhost.service \
           ./usr/lib/sysusers.d/schedhost.conf ./usr/share/man/man1/schedhost.1.gz \
           ./etc/schedhost/schedhost.toml ./etc/schedhost/profiles.d/default.toml \
           ./usr/share/doc/schedhost/copyright ./usr/share/doc/schedhost/packaging.md; do
    contains "$f" "$files" "schedhost files"
  done
  contains "u schedhost" "$(dpkg-deb --fsys-tarfile "$host" | tar -xO ./usr/lib/sysusers.d/schedhost.conf)" "sysusers entry"
  plugins=$(deb schedhost-plugins)
  contains "schedhost-plugin-abi-1" "$(dpkg-deb -f "$plugins" Depends)" "schedhost-plugins Depends"
  # One .so per plugin plugins/catalog.toml lists (one [[plugin]] table each).
  expected=$(grep -c '^\[\[plugin\]\]' "$src/plugins/catalog.toml")
  got=$(dpkg-deb -c "$plugins" | grep -c "usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/schedhost/plugins/.*\.so$" || true)
  echo "schedhost-plugins: $got plugins (catalog entries: $expected)"
  [ "$got" -eq "$expected" ] || fail "schedhost-plugins holds $got plugins, the catalog lists $expected"
  dev=$(deb schedhost-dev)
  devFiles=$(dpkg-deb -c "$dev" | awk '{print $6}')
  contains "./usr/include/schedhost/plugin.h" "$devFiles" "schedhost-dev files"
  contains "./usr/include/schedhost/plugin.hpp" "$devFiles" "schedhost-dev files"
  grep -qE "^\./usr/lib/[^/]+/cmake/[^/]+/.*[Cc]onfig\.cmake$" <<<"$devFiles" || fail "schedhost-dev has no CMake package"
  echo "deb metadata: ok"
  ;;

rpm-metadata)
  host=$(rpmOf schedhost)
  contains "schedhost-plugin-abi-1" "$(rpm -qp --provides "$host" 2>/dev/null)" "schedhost Provides"
  # FILEFLAGS:fflags prints c for %config and n for noreplace.
  flags=$(rpm -qp --qf '[%{FILENAMES} %{FILEFLAGS:fflags}\n]' "$host" 2>/dev/null)
  contains "/etc/schedhost/schedhost.toml cn" "$flags" "schedhost.toml %config(noreplace)"
  contains "/etc/schedhost/profiles.d/default.toml cn" "$flags" "default.toml %config(noreplace)"
  scripts=$(rpm -qp --scripts "$host" 2>/dev/null)
  contains "useradd -r -g schedhost" "$scripts" "%pre creates the user"
  contains "disable --now schedhost.service" "$scripts" "%preun stops the service"
  contains "try-restart schedhost.service" "$scripts" "%postun restarts on upgrade"
  files=$(rpm -qpl "$host" 2>/dev/null)
  for f in /usr/bin/schedhost /usr/bin/kubectl-schedhost /usr/lib/systemd/system/schedhost.service /usr/lib/sysusers.d/schedhost.conf; do
    contains "$f" "$files" "schedhost files"
  done
  grep -q '^/usr/share/man/man1/schedhost.1' <<<"$files" || fail "no man page in the RPM"
  # Erasing removes the state directory because the package owns it (no rm in a scriptlet).
  owners=$(rpm -qp --qf '[%{FILENAMES} %{FILEUSERNAME}:%{FILEGROUPNAME} %{FILEMODES:perms}\n]' "$host" 2>/dev/null)
  contains "/var/lib/schedhost root:root drwxr-xr-x" "$owners" "the state directory, owned by the package"
  plugins=$(rpmOf schedhost-plugins)
  contains "schedhost-plugin-abi-1" "$(rpm -qp --requires "$plugins" 2>/dev/null)" "schedhost-plugins Requires"
  grep -q '^/usr/lib64/schedhost/plugins/.*\.so$' <<<"$(rpm -qpl "$plugins" 2>/dev/null)" \
    || fail "no plugin under /usr/lib64/schedhost/plugins"
  devel=$(rpmOf schedhost-devel)
  develFiles=$(rpm -qpl "$devel" 2>/dev/null)
  contains "/usr/include/schedhost/plugin.h" "$develFiles" "schedhost-devel files"
  grep -qE '^/usr/lib64/cmake/[^/]+/.*[Cc]onfig\.cmake$' <<<"$develFiles" || fail "schedhost-devel has no CMake package"
  echo "rpm metadata: ok"
  ;;

dev-contents)
  # Everything the build installed under the SDK's paths is in schedhost-dev, and the contract
  # paths of the SDK are where docs/packaging.md says.
  staged="$pkgs/work/deb/schedhost-"*/packaging/debian/tmp
  staged=$(one "$staged")
  devFiles=$(dpkg-deb -c "$(deb schedhost-dev)" | awk '$1 !~ /^d/ {print $6}')
  count=0
  while IFS= read -r f; do
    contains "./$f" "$devFiles" "schedhost-dev (installed by the build)"
    count=$((count + 1))
  done < <(cd "$staged" && find usr/include/schedhost usr/lib/*/cmake usr/lib/*/pkgconfig \
             usr/share/schedhost/examples usr/share/cargo/registry \( -type f -o -type l \) 2>/dev/null | sort)
  [ "$count" -gt 0 ] || fail "nothing staged under the SDK's paths in $staged"
  echo "schedhost-dev: all $count staged SDK files packaged"
  ;;

plugins-mdwe)
  # MemoryDenyWriteExecute=yes in the unit refuses text relocations and executable stacks.
  dpkg-deb -x "$(deb schedhost-plugins)" "$scratch/root"
  n=0
  while IFS= read -r so; do
    ! readelf -d "$so" | grep -q TEXTREL || fail "$so has text relocations"
    stack=$(readelf -lW "$so" | awk '$1 == "GNU_STACK" {print $7}')
    [ "$stack" = "RW" ] || fail "$so: GNU_STACK is '$stack', not RW"
    n=$((n + 1))
  done < <(find "$scratch/root" -name '*.so')
  [ $n -gt 0 ] || fail "no plugins"
  echo "$n plugins: no text relocations, non-executable stack"
  ;;

*) fail "unknown check $check" ;;
esac
