#!/bin/bash
# Every citation in the repository points at a primary source (kernel file, driver doc, RFC,
# paper) or at the repository's own docs (docs/domain.md), never at a document that is not in
# the repository (issue #19). Greps every tracked file except tests/fixtures/ (captured data is
# kept verbatim) for the names of those external documents and names each hit.
#
#   tests/repo/no_external_citations.sh [SOURCE_DIR]
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "SKIP: not a git work tree (the check reads git ls-files)"
  exit 77
fi

# The names of documents outside the repository. This script itself is excluded: it has to
# spell them.
patterns=(
  -e '\.\./shared/'
  -e 'shared/docs/design\.md'
  -e 'shared/reference/'
  -e 'roce-domain'
  -e 'detection\.md'
  -e 'landscape\.md'
  -e 'softroce-vm'
  -e 'code-models'
)

hits=$(git grep -n -I "${patterns[@]}" -- . ':!tests/fixtures/' ':!tests/repo/no_external_citations.sh' \
  || true)
if [[ -n "$hits" ]]; then
  echo "Citations of documents outside the repository (cite the primary source or docs/domain.md):"
  echo "$hits"
  echo "$(wc -l <<<"$hits") hit(s)"
  exit 1
fi
echo "no external citations"
