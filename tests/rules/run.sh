#!/bin/sh
# Rules suite driver (tests/rules/suite.cmake). Modes:
#   rdmatop  RDMATOP FILES...   `rdmatop rules test` with rdmatop's engine
#   promtool FILES...           `promtool test rules` on the same files
#   export   RDMATOP OUTDIR     `rdmatop rules export`, then `promtool check rules` on the result
#   hosts    RDMATOP OUTDIR FILES...
#                               the multi-host variants of FILES (two_hosts.py) through both engines
# Exit 77 (the suite's SKIP_RETURN_CODE) with a reason when a tool is missing.
set -u
mode=$1
shift
case "$mode" in
  rdmatop)
    cli=$1
    shift
    exec "$cli" rules test "$@"
    ;;
  promtool)
    if ! command -v promtool >/dev/null 2>&1; then
      echo "SKIP: promtool not installed (apt-get install prometheus)"
      exit 77
    fi
    exec promtool test rules "$@"
    ;;
  export)
    cli=$1
    out=$2/rdmatop-rules.yaml
    mkdir -p "$2"
    "$cli" rules export --format prometheus -o "$out" || exit 1
    if ! command -v promtool >/dev/null 2>&1; then
      echo "SKIP: exported $out but promtool is not installed to check it"
      exit 77
    fi
    exec promtool check rules "$out"
    ;;
  hosts)
    cli=$1
    out=$2
    shift 2
    variants=$(python3 "$(dirname "$0")/two_hosts.py" "$out" "$@") || exit 1
    [ -n "$variants" ] || { echo "no test case to vary"; exit 1; }
    # shellcheck disable=SC2086 # one path per line, none with spaces (the build tree's)
    "$cli" rules test $variants || exit 1
    if ! command -v promtool >/dev/null 2>&1; then
      echo "SKIP: rdmatop passed the multi-host variants; promtool is not installed to run them"
      exit 77
    fi
    # shellcheck disable=SC2086
    exec promtool test rules $variants
    ;;
esac
echo "unknown mode $mode"
exit 2
