#!/usr/bin/env bash
# Keeps deploy/ honest: the shipped Prometheus alert rules and the PrometheusRule equal what
# `rdmatop rules export` generates from the built-in pack (and pass promtool); the systemd unit
# verifies, runs flags the exporter has and hides none of its sources; every Kubernetes manifest
# parses, and the DaemonSet's arguments are flags of `rdmatop exporter --help`, with every
# source family reachable (host network and PID namespaces, /sys, /dev/infiniband, the
# capabilities); the Dockerfile installs the .deb; and every metric the Grafana dashboard
# queries is emitted by the exporter on some fixture host or documented in docs/.
# Usage: deploy_test.sh RDMATOP
source "$(dirname "$0")/lib.sh"
need curl
bin=$1
shipped="$repo/deploy/prometheus/rdmatop-alerts.yaml"

"$bin" rules export --format prometheus -o "$work/alerts.yaml"
diff -u "$shipped" "$work/alerts.yaml" \
  || fail "deploy/prometheus/rdmatop-alerts.yaml is stale; regenerate it with:
  scripts/gen-deploy-rules.sh build/bin/rdmatop"
"$repo/scripts/prometheusrule.sh" "$work/alerts.yaml" "$repo/rules/fleet/fleet.yaml" \
  >"$work/prometheusrule.yaml"
diff -u "$repo/deploy/kubernetes/rdmatop-prometheusrule.yaml" "$work/prometheusrule.yaml" \
  || fail "deploy/kubernetes/rdmatop-prometheusrule.yaml is stale; regenerate it with:
  scripts/gen-deploy-rules.sh build/bin/rdmatop"
if command -v promtool >/dev/null; then
  promtool check rules "$shipped" || fail "promtool check rules"
fi
echo "ok: shipped alert rules are in sync with the built-in pack"

# The exporter's flags, from its own --help (what the unit, the DaemonSet and the image use).
"$bin" exporter --help \
  | sed -n '/^Options:/,$s/^  \(-[a-zA-Z0-9],\)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p' \
  | sort -u >"$work/exporter-flags"
grep -qx -- --listen "$work/exporter-flags" || fail "no --listen in rdmatop exporter --help"
# check_args WHERE ARG...: ARG 1 is `exporter` and every --flag after it is an exporter flag.
check_args() {
  local where=$1 arg flag
  shift
  [ "${1:-}" = exporter ] || fail "$where: does not run the exporter subcommand: $*"
  shift
  for arg in "$@"; do
    case $arg in
      --*) flag=${arg%%=*}
           grep -qx -- "$flag" "$work/exporter-flags" \
             || fail "$where: $flag is not a flag of rdmatop exporter --help" ;;
    esac
  done
}

# The systemd unit: ExecStart's flags exist; no setting hides what the exporter reads
# (systemd.exec(5): ProtectProc=invisible hides other users' /proc/<pid>, ProcSubset=pid hides
# /proc/interrupts, PrivateDevices hides /dev/infiniband, PrivateNetwork the host's netdevs);
# the capabilities it documents are granted; and it verifies.
unit="$repo/deploy/systemd/rdmatop-exporter.service"
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
# shellcheck disable=SC2086  # split the command line into words
set -- $exec_start
[ "$1" = /usr/bin/rdmatop ] || fail "unit: ExecStart runs $1, not the packaged /usr/bin/rdmatop"
shift
check_args "systemd unit ExecStart" "$@"
for hiding in '^ProtectProc=invisible' '^ProcSubset=pid' '^PrivateDevices=yes' '^PrivateNetwork=yes'; do
  ! grep -q "$hiding" "$unit" || fail "unit: $hiding hides a source the exporter reads"
done
for cap in CAP_NET_ADMIN CAP_IPC_LOCK CAP_NET_BROADCAST; do
  grep -q "^AmbientCapabilities=.*$cap" "$unit" || fail "unit: $cap not granted"
  grep -q "^CapabilityBoundingSet=.*$cap" "$unit" || fail "unit: $cap not in the bounding set"
done
if command -v systemd-analyze >/dev/null; then
  sed "s|/usr/bin/rdmatop|$(readlink -f "$bin")|" "$unit" >"$work/rdmatop-exporter.service"
  # --man=no: the unit's Documentation=man:rdmatop-exporter(1) exists once installed (the
  # package test verifies the installed unit with it); here it is the build tree's binary.
  out=$(systemd-analyze verify --man=no "$work/rdmatop-exporter.service" 2>&1) \
    || fail "systemd-analyze verify: $out"
  [ -z "$out" ] || fail "systemd-analyze verify: $out"
  echo "ok: systemd unit verifies"
else
  echo "note: systemd-analyze not installed; the unit's syntax is not verified"
fi
echo "ok: systemd unit runs real exporter flags and hides no source"

# The Dockerfile: Debian 12, installs the .deb, runs the packaged binary with real flags.
dockerfile="$repo/deploy/container/Dockerfile"
grep -q '^FROM debian:12' "$dockerfile" || fail "Dockerfile: not FROM debian:12"
# (instructions continued over lines with a trailing backslash are joined first)
sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$dockerfile" >"$work/Dockerfile.joined"
grep -q '^RUN .*apt-get install .*/tmp/rdmatop_\*\.deb' "$work/Dockerfile.joined" \
  || fail "Dockerfile: does not install the .deb"
grep -q '^ENTRYPOINT \["/usr/bin/rdmatop"\]' "$dockerfile" || fail "Dockerfile: ENTRYPOINT is not /usr/bin/rdmatop"
mapfile -t cmd < <(sed -n 's/^CMD \[\(.*\)\]$/\1/p' "$dockerfile" | tr ',' '\n' | sed 's/^ *"//; s/" *$//')
check_args "Dockerfile CMD" "${cmd[@]}"
echo "ok: Dockerfile"

# Every Kubernetes manifest parses; the DaemonSet reads every source family and passes real
# flags; the PrometheusRule's groups pass promtool.
if python3 -c 'import yaml' 2>/dev/null; then
version=$("$bin" --version | sed -n '1s/^rdmatop //p')
python3 - "$repo/deploy/kubernetes" "$work" "$version" <<'PY' || fail "kubernetes manifests"
import glob, os, sys, yaml
directory, work, version = sys.argv[1:4]
docs = []
for path in sorted(glob.glob(os.path.join(directory, "*.yaml"))):
    with open(path) as f:
        docs += [(os.path.basename(path), d) for d in yaml.safe_load_all(f) if d]
kinds = sorted(d["kind"] for _, d in docs)
want = sorted(["Namespace", "DaemonSet", "PodMonitor", "PrometheusRule"])
assert kinds == want, f"kinds {kinds}, want {want}"
by_kind = {d["kind"]: d for _, d in docs}
pod = by_kind["DaemonSet"]["spec"]["template"]["spec"]
(container,) = pod["containers"]
problems = []
if pod.get("hostNetwork") is not True:
    problems.append("hostNetwork is not true: ethtool, netlink and class/net would be the pod's")
if pod.get("hostPID") is not True:
    problems.append("hostPID is not true: the RDMA process view needs the host's PIDs")
volumes = {v["name"]: v.get("hostPath", {}).get("path") for v in pod.get("volumes", [])}
mounts = {m["mountPath"]: volumes.get(m["name"]) for m in container.get("volumeMounts", [])}
for path in ("/sys", "/dev/infiniband"):
    if mounts.get(path) != path:
        problems.append(f"the host's {path} is not mounted at {path} (mounts: {mounts})")
caps = container.get("securityContext", {}).get("capabilities", {})
if caps.get("drop") != ["ALL"]:
    problems.append("capabilities: not drop ALL")
for cap in ("NET_ADMIN", "IPC_LOCK", "NET_BROADCAST"):
    if cap not in caps.get("add", []):
        problems.append(f"capabilities: {cap} not added")
args = container.get("args", [])
with open(os.path.join(work, "daemonset-args"), "w") as f:
    f.write("\n".join(args) + "\n")
# Flags that would take a source family away from the node (docs/cli.md: with a --sysfs-root
# other than /sys, ethtool, netlink and procfs are not read; --demo/--from replace the host).
for arg in args:
    flag, _, value = arg.partition("=")
    if flag in ("--demo", "--from", "--ethtool-dir", "--procfs-root"):
        problems.append(f"{arg}: serves something other than the node's live sources")
    if flag == "--sysfs-root" and value not in ("", "/sys"):
        problems.append(f"{arg}: ethtool, netlink and procfs are skipped with a non-/sys root")
listen = [a.partition("=")[2] for a in args if a.startswith("--listen=")]
ports = [p["containerPort"] for p in container.get("ports", []) if p.get("name") == "metrics"]
if not listen or not ports or not listen[0].endswith(f":{ports[0]}"):
    problems.append(f"--listen {listen} does not serve the metrics port {ports}")
image = container["image"]
if not image.endswith(f":{version}"):
    problems.append(f"image {image} is not tagged with the version {version}")
endpoints = by_kind["PodMonitor"]["spec"]["podMetricsEndpoints"]
if [e["port"] for e in endpoints] != ["metrics"]:
    problems.append("PodMonitor does not scrape the metrics port")
with open(os.path.join(work, "prometheusrule-groups.yaml"), "w") as f:
    yaml.safe_dump({"groups": by_kind["PrometheusRule"]["spec"]["groups"]}, f)
for p in problems:
    print("FAIL: DaemonSet:", p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
mapfile -t ds_args <"$work/daemonset-args"
check_args "DaemonSet args" "${ds_args[@]}"
if command -v promtool >/dev/null; then
  promtool check rules "$work/prometheusrule-groups.yaml" >/dev/null || fail "PrometheusRule groups: promtool check rules"
fi
echo "ok: kubernetes manifests parse; the DaemonSet reads every source with real flags (${ds_args[*]})"
else
  echo "note: python3-yaml is not installed (scripts/install-deps.sh); Kubernetes manifests not checked"
fi

for host in "$fixtures"/*/; do
  start_exporter "$bin" "$host"
  get "$exporter_port" /metrics >>"$work/all.prom"
done
sed -n 's/^\([a-zA-Z_:][a-zA-Z0-9_:]*\)[{ ].*/\1/p' "$work/all.prom" | sort -u >"$work/emitted"

dashboard="$repo/deploy/grafana/rdmatop-dashboard.json"
grep '"expr":\|"query": "label_values' "$dashboard" \
  | grep -o '\brdma[a-z0-9_:]*' | sort -u >"$work/queried"
[ -s "$work/queried" ] || fail "no metric names found in the dashboard"
missing=0
while read -r metric; do
  if grep -qx "$metric" "$work/emitted"; then continue; fi
  # Recorded by the fleet rules in Prometheus, not emitted by any one exporter.
  if grep -q "^ *- record: $metric\$" "$repo/rules/fleet/fleet.yaml"; then continue; fi
  if grep -q "\`$metric\`" "$repo/docs/metrics.md" "$repo/docs/exporter.md"; then
    echo "note: $metric is not emitted on the fixture hosts but is documented"
    continue
  fi
  echo "FAIL: the dashboard queries $metric, which the exporter does not emit" >&2
  missing=1
done <"$work/queried"
[ "$missing" = 0 ] || exit 1
echo "ok: $(wc -l <"$work/queried") dashboard metrics are all emitted or documented"
echo "PASS"
