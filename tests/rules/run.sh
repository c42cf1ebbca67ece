#!/bin/sh
# Rules suite driver (tests/rules/suite.cmake). Modes:
#   rdmatop  RDMATOP FILES...   `rdmatop rules test` with rdmatop's engine
#   promtool FILES...           `promtool test rules` on the same files
#   export   RDMATOP OUTDIR     `rdmatop rules export`, then `promtool check rules` on the result
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
esac
echo "unknown mode $mode"
exit 2
