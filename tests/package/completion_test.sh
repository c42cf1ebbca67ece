#!/usr/bin/env bash
# The generated completion files (cmake/GenerateDist.cmake, `rdmatop completion bash|zsh`)
# against the real command tree: every subcommand of `rdmatop --help` is offered after
# `rdmatop `, every long flag of `rdmatop SUB --help` after `rdmatop SUB --`, the rules
# subcommands after `rdmatop rules `, and a flag's value falls back to file names. bash runs the
# completion function as bash-completion would (COMP_WORDS/COMP_CWORD); zsh (when installed)
# the same with compadd and _files stubbed. Usage: completion_test.sh RDMATOP DIST_DIR
set -euo pipefail
bin=$1
dist=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -s "$dist/completion/rdmatop" ] || fail "no $dist/completion/rdmatop (build the rdmatop_dist target)"
[ -s "$dist/completion/_rdmatop" ] || fail "no $dist/completion/_rdmatop"

# subcommands HELP_TEXT: the names of CLI11's "Subcommands:" section.
subcommands() { sed -n '/^Subcommands:/,$s/^  \([a-z][a-z0-9-]*\) .*/\1/p'; }
# long_flags HELP_TEXT: the --name each line of the "Options:" section defines.
long_flags() {
  sed -n '/^Options:/,/^Subcommands:/s/^  \(-[a-zA-Z0-9],\)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p' | sort -u
}

# bash_complete WORD...: what the bash completion offers for the last word.
bash_complete() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _rdmatop
           printf "%s\n" "${COMPREPLY[@]}"' _ "$dist/completion/rdmatop" "$@"
}
zsh_complete() {
  # The file ends by calling _rdmatop, as an autoloaded completion function does on first use.
  # compadd keeps the candidates the word being completed is a prefix of, as zsh's does.
  zsh -fc 'compadd() { shift; local w; for w; do [[ $w == ${words[CURRENT]}* ]] && print -r -- $w; done; return 0; }
           _files() { print -r -- "<files>"; }
           file=$1; shift; words=("$@"); CURRENT=$#; source "$file"' _ "$dist/completion/_rdmatop" "$@"
}

check_shell() {
  local complete=$1 sub flag got
  mapfile -t subs < <("$bin" --help | subcommands)
  [ "${#subs[@]}" -ge 5 ] || fail "only ${#subs[@]} subcommands in rdmatop --help"
  got=$($complete rdmatop "" | sort)
  [ "$got" = "$(printf '%s\n' "${subs[@]}" | sort)" ] || fail "$complete 'rdmatop ': $got"
  for sub in "${subs[@]}"; do
    got=$($complete rdmatop "$sub" --)
    while read -r flag; do
      grep -qx -- "$flag" <<<"$got" || fail "$complete 'rdmatop $sub --' lacks $flag"
    done < <("$bin" "$sub" --help | long_flags)
  done
  got=$($complete rdmatop rules "" | sort)
  [ "$got" = "$("$bin" rules --help | subcommands | sort)" ] || fail "$complete 'rdmatop rules ': $got"
  got=$($complete rdmatop rules export --fo)
  [ "$got" = "--format" ] || fail "$complete 'rdmatop rules export --fo': $got"
  # After a flag that takes a value: file names (bash: empty, so `complete -o default` does it).
  got=$($complete rdmatop report --sysfs-root "")
  [ -z "$got" ] || [ "$got" = "<files>" ] || fail "$complete 'rdmatop report --sysfs-root ': $got"
  # The value is skipped: `rules` there is a directory name, not the subcommand.
  got=$($complete rdmatop report --sysfs-root rules --js)
  [ "$got" = "--json" ] || fail "$complete 'rdmatop report --sysfs-root rules --js': $got"
  echo "ok: $complete offers ${#subs[@]} subcommands and their flags"
}

check_shell bash_complete
if command -v zsh >/dev/null; then
  zsh -n "$dist/completion/_rdmatop" || fail "zsh -n _rdmatop"
  check_shell zsh_complete
else
  echo "SKIPPED: zsh is not installed (scripts/install-deps.sh); zsh completion not exercised"
fi
echo "PASS"
