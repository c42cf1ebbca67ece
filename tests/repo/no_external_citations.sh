#!/bin/bash
# Every citation in the repository points at a primary source (kernel file, driver doc, RFC,
# paper) or at the repository's own docs (docs/domain.md), never at a document that is not in
# the repository (issue #19). Greps every tracked file except the data under tests/fixtures/
# (kept verbatim) for the names of those external documents and names each hit, then checks
# that every link into docs/domain.md names a section that exists. Runs in well under a second.
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

status=0
# Captured and generated data under tests/fixtures/ is kept verbatim and not checked; the
# fixtures' README and generator are written here, so they are.
hits=$( (git grep -n -I "${patterns[@]}" -- . ':!tests/fixtures/' \
  ':!tests/repo/no_external_citations.sh' || true
  git grep -n -I "${patterns[@]}" -- tests/fixtures/README.md tests/fixtures/tools/ || true))
if [[ -n "$hits" ]]; then
  echo "Citations of documents outside the repository (cite the primary source or docs/domain.md):"
  echo "$hits"
  echo "$(wc -l <<<"$hits") hit(s)"
  status=1
fi

# Links into docs/domain.md name a section that exists. Anchors are GitHub's heading slugs:
# lower case, punctuation other than '-' and '_' dropped, spaces turned into '-'.
anchors=$(sed -n 's/^#\{1,6\} \(.*\)$/\1/p' docs/domain.md | tr '[:upper:]' '[:lower:]' \
  | sed 's/[^a-z0-9 _-]//g; s/ /-/g')
refs=$( (git grep -n -o -I -E 'domain\.md#[A-Za-z0-9_-]+' -- . ':!tests/fixtures/' || true;
  grep -n -o -E '\]\(#[A-Za-z0-9_-]+\)' docs/domain.md | sed 's/^/docs\/domain.md:/' || true))
declare -A have=()
while IFS= read -r a; do [[ -n "$a" ]] && have[$a]=1; done <<<"$anchors"
bad=""
while IFS= read -r ref; do
  [[ -z "$ref" ]] && continue
  anchor=${ref##*#}
  anchor=${anchor%)}
  [[ -n "${have[$anchor]:-}" ]] || bad+="$ref"$'\n'
done <<<"$refs"
if [[ -n "$bad" ]]; then
  echo "Links to sections docs/domain.md does not have:"
  printf '%s' "$bad"
  status=1
fi
[[ $status -eq 0 ]] && echo "no external citations; every docs/domain.md link resolves"
exit $status
