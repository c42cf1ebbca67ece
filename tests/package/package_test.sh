#!/usr/bin/env bash
# The .deb as a platform team would try it (issue #20): cpack builds it, dpkg installs it, the
# INSTALLED files are exercised (/usr/bin/rdmatop --version and a report on a fixture host, the
# man pages, the completion files, the rule files, `systemd-analyze verify` of the unit), and
# `dpkg -r` removes it (then `dpkg -P` purges it), on every exit path. Usage: package_test.sh BUILD_DIR [SANITIZERS]
set -euo pipefail
SKIP=77
build=$1
sanitize=${2:-}
repo="$(cd "$(dirname "$0")/../.." && pwd)"
fixture="$repo/tests/fixtures/hosts/mlx5"

skip() { echo "SKIP: $*"; exit $SKIP; }
fail() { echo "FAIL: $*" >&2; exit 1; }

[ -z "$sanitize" ] || skip "sanitizer build ($sanitize): the package is built from a plain build"
[ "$(id -u)" -eq 0 ] || skip "dpkg -i needs root (run as root, e.g. in CI's container)"
command -v dpkg >/dev/null || skip "dpkg not found: not a Debian system"
command -v cpack >/dev/null || skip "cpack not found"
if dpkg-query -W rdmatop >/dev/null 2>&1; then
  skip "a package rdmatop is already known to dpkg here; this test would replace and remove it"
fi

[ ! -e /usr/bin/rdmatop ] || skip "/usr/bin/rdmatop exists and is not from the package; not overwriting it"

work=$(mktemp -d)
installed=0
cleanup() {
  if [ "$installed" = 1 ]; then
    # dpkg -P: remove and purge, so not even the config-files state (left by -r for a
    # package with a postrm) stays behind.
    dpkg -P rdmatop >"$work/remove.log" 2>&1 || { cat "$work/remove.log" >&2; echo "FAIL: dpkg -P" >&2; }
    if dpkg-query -W rdmatop >/dev/null 2>&1; then echo "FAIL: rdmatop is still known to dpkg" >&2; fi
  fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "== cpack"
(cd "$work" && cpack --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1) \
  || { cat "$work/cpack.log" >&2; fail "cpack"; }
deb=$(ls "$work"/out/rdmatop_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { cat "$work/cpack.log" >&2; fail "cpack made no rdmatop_*.deb"; }
echo "built $(basename "$deb")"
dpkg-deb --info "$deb" | sed -n 's/^ \(Package\|Version\|Depends\|Maintainer\|Section\):/  \1:/p'
depends=$(dpkg-deb --field "$deb" Depends)
for lib in libibverbs1 librdmacm1 libmnl0 libarchive13 libprometheus-cpp-core1.0 libyaml-cpp0.7 libssl3 \
  liburing2 libisal2; do
  [[ $depends == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done
dpkg-deb --contents "$deb" >"$work/contents"
grep -q '\./usr/share/doc/rdmatop/copyright$' "$work/contents" || fail "no copyright file"

echo "== dpkg -i"
installed=1
dpkg -i "$deb" >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; fail "dpkg -i"; }

echo "== the installed binary"
out=$(/usr/bin/rdmatop --version) || fail "rdmatop --version"
echo "$out"
[[ $(head -1 <<<"$out") =~ ^rdmatop\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "--version line 1: $out"
grep -q '^commit: ' <<<"$out" || fail "--version has no commit line"
grep -q '^built: ' <<<"$out" || fail "--version has no build date"
rc=0
/usr/bin/rdmatop report --interval 0 --sysfs-root "$fixture/sys" --ethtool-dir "$fixture/ethtool" \
  >"$work/report.txt" 2>&1 || rc=$?
[ "$rc" -le 2 ] || { cat "$work/report.txt" >&2; fail "installed rdmatop report exited $rc"; }
grep -q mlx5 "$work/report.txt" || fail "the report does not show the mlx5 fixture"
echo "ok: report on tests/fixtures/hosts/mlx5 (exit $rc)"

echo "== man pages"
mapfile -t subcommands < <(/usr/bin/rdmatop --help | sed -n '/^Subcommands:/,$s/^  \([a-z][a-z0-9-]*\) .*/\1/p')
[ "${#subcommands[@]}" -gt 0 ] || fail "no subcommands in rdmatop --help"
if grep -rqs '^path-exclude.*/usr/share/man' /etc/dpkg/dpkg.cfg /etc/dpkg/dpkg.cfg.d/; then
  # Minimal container images tell dpkg to drop man pages (dpkg.cfg(5) path-exclude).
  echo "note: dpkg excludes /usr/share/man on this system; checking the pages in the .deb"
  dpkg-deb -x "$deb" "$work/extracted"
  man_root="$work/extracted/usr/share/man"
  man_w() { [ -f "$man_root/man1/$1.1.gz" ] && echo "/usr/share/man/man1/$1.1.gz"; }
else
  command -v man >/dev/null || fail "man not installed (man-db, scripts/install-deps.sh)"
  man_root=/usr/share/man
  man_w() { man -w "$1" 2>/dev/null; }
fi
for page in rdmatop "${subcommands[@]/#/rdmatop-}"; do
  file=$(man_w "$page") || fail "man -w $page: no page installed"
  case $file in /usr/share/man/man1/"$page".1.gz) ;; *) fail "man -w $page: $file" ;; esac
  zcat "$man_root/man1/$page.1.gz" | grep -q '^\.SH DESCRIPTION' || fail "$file has no DESCRIPTION"
done
# The exporter's page documents its real flags (made from the same --help text).
zcat "$man_root/man1/rdmatop-exporter.1.gz" | grep -q -- 'listen' || fail "exporter page lacks --listen"
echo "ok: man pages for rdmatop and ${subcommands[*]}"

echo "== completion, rules, deploy files, docs"
for f in /usr/share/bash-completion/completions/rdmatop /usr/share/zsh/vendor-completions/_rdmatop \
         /usr/share/rdmatop/rules/rdmatop-rules.yaml /usr/share/rdmatop/prometheus/rdmatop-alerts.yaml \
         /usr/share/rdmatop/prometheus/rdmatop-fleet-alerts.yaml \
         /usr/share/rdmatop/grafana/rdmatop-dashboard.json /usr/share/doc/rdmatop/LICENSE \
         /usr/share/doc/rdmatop/NOTICE /usr/share/doc/rdmatop/install.md \
         /usr/share/doc/rdmatop/exporter.md /lib/systemd/system/rdmatop-exporter.service; do
  [ -s "$f" ] || fail "not installed: $f"
done
/usr/bin/rdmatop rules check /usr/share/rdmatop/rules/rdmatop-rules.yaml >/dev/null \
  || fail "the installed rule file does not check"
if command -v promtool >/dev/null; then
  promtool check rules /usr/share/rdmatop/rules/rdmatop-rules.yaml >/dev/null || fail "promtool check rules"
fi
# Every runbook_url of the installed alert files names an installed page (file:// default base).
sed -n "s|^ *runbook_url: *'\{0,1\}file://\([^']*\)'\{0,1\}$|\1|p" \
  /usr/share/rdmatop/rules/rdmatop-rules.yaml /usr/share/rdmatop/prometheus/rdmatop-fleet-alerts.yaml \
  >"$work/runbook-pages"
while read -r page; do
  [ -s "$page" ] || fail "runbook_url names a page that is not installed: $page"
done <"$work/runbook-pages"
runbooks=$(wc -l <"$work/runbook-pages")
[ "$runbooks" -gt 50 ] || fail "only $runbooks runbook_url annotations in the installed rule files"
bash -c 'source /usr/share/bash-completion/completions/rdmatop && complete -p rdmatop' >/dev/null \
  || fail "the bash completion file does not register a completion for rdmatop"
echo "ok"

echo "== systemd unit"
unit=/lib/systemd/system/rdmatop-exporter.service
grep -q '^ExecStart=/usr/bin/rdmatop exporter ' "$unit" || fail "ExecStart does not run /usr/bin/rdmatop"
if ! command -v systemd-analyze >/dev/null; then
  echo "SKIPPED CHECK: systemd-analyze is not installed (apt-get install systemd); unit not verified"
else
  # systemd-analyze verify loads the unit offline (systemd-analyze(1)); it needs no running
  # systemd. Any output is a finding (unknown key, missing binary, bad value).
  if out=$(systemd-analyze verify "$unit" 2>&1) && [ -z "$out" ]; then
    echo "ok: systemd-analyze verify $unit"
  elif grep -q "Failed to initialize manager\|Failed to setup manager\|Cannot determine cgroup" <<<"$out"; then
    echo "SKIPPED CHECK: systemd-analyze cannot run in this container: $out"
  else
    fail "systemd-analyze verify $unit: $out"
  fi
fi

echo "== dpkg -r"
dpkg -r rdmatop >"$work/remove.log" 2>&1 || { cat "$work/remove.log" >&2; fail "dpkg -r"; }
for f in /usr/bin/rdmatop /lib/systemd/system/rdmatop-exporter.service /usr/share/rdmatop; do
  [ ! -e "$f" ] || fail "$f is still there after dpkg -r"
done
dpkg -P rdmatop >"$work/remove.log" 2>&1 || { cat "$work/remove.log" >&2; fail "dpkg -P"; }
installed=0
! dpkg-query -W rdmatop >/dev/null 2>&1 || fail "rdmatop is still known to dpkg after dpkg -P"
echo "PASS"
