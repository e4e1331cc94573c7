#!/bin/sh
# Writes schedhost(1): the hand-written page TEMPLATE with its @COMMANDS@ line replaced by
# the --help of every command and subcommand of BINARY, and @VERSION@ by VERSION.
# The options section is generated so that it cannot fall behind the binary; the
# packaging.man_page test compares the packaged page with the packaged binary's --help.
# Usage: generate-man-page.sh BINARY TEMPLATE VERSION OUTPUT
set -eu
binary=$1 template=$2 version=$3 output=$4

# roff escapes: a backslash is \e, a minus sign \- (so options copy and paste as ASCII), and a
# line may not start with a control character.
roffEscape() {
  sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
}

# The subcommand names a --help text lists under "Subcommands:".
subcommandsOf() {
  awk '/^Subcommands:/ { in_list = 1; next }
       in_list && /^  [a-z]/ { print $1; next }
       in_list && /^[^ ]/ { in_list = 0 }'
}

commands=$(mktemp)
trap 'rm -f "$commands" "$commands.help"' EXIT
{
  # Breadth-first over the command tree, the top-level command first.
  pending="."
  while [ -n "$pending" ]; do
    path=${pending%%:*}
    case $pending in *:*) pending=${pending#*:} ;; *) pending="" ;; esac
    args=""
    [ "$path" != "." ] && args=$path
    # shellcheck disable=SC2086 # args is a word list on purpose
    "$binary" $args --help >"$commands.help"
    title="schedhost${args:+ $args}"
    printf '.SS "%s"\n' "$title"
    # The first line is the command's one-line description.
    head -n 1 "$commands.help" | roffEscape
    printf '.PP\n.nf\n'
    # The Usage line names the binary by the path it ran from; the page names it schedhost.
    tail -n +2 "$commands.help" | sed -e "s|^Usage: [^ ]*|Usage: schedhost|" \
      | roffEscape | sed -e "s/^$/.sp/"
    printf '.fi\n'
    for sub in $(subcommandsOf <"$commands.help"); do
      child=$sub
      [ "$path" != "." ] && child="$path $sub"
      pending="${pending:+$pending:}$child"
    done
  done
} >"$commands"

sed -e "s/@VERSION@/$version/g" "$template" | awk -v commands="$commands" '
  $0 == "@COMMANDS@" { while ((getline line < commands) > 0) print line; next }
  { print }' >"$output"
