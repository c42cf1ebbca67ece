#!/bin/bash
# Stage 2 of the rxe VM: runs as root inside the overlay root (the host's userland), started by
# stage 1 (guest/init). Brings up the netdevs and rxe devices, then runs the command (main VM)
# or the peer command (second VM of --topology two) and writes its exit code to the share.
#
# In: RXE_VM_NAME (a|b) and RXE_VM_WORKDIR from the kernel command line; everything else from
# $RXE_VM_WORKDIR/vm-$RXE_VM_NAME/vm.env, written by rxe-run with printf %q (same bash on both
# sides, so arrays round-trip exactly).
# Process spawning costs ~50 ms under TCG (docs/vm.md#recipe-pitfalls): ip and rdma run in batch
# mode, and the GID table is read with one awk per poll, never one process per entry.
set -uo pipefail

dir="$RXE_VM_WORKDIR/vm-$RXE_VM_NAME"
# shellcheck source=/dev/null
source "$dir/vm.env"

say() { echo "rxe-vm[$RXE_VM_NAME]: $*" >&2; }
mark() {
  local up _
  read -r up _ </proc/uptime
  say "t=$up $*"
}
mark "stage 2"
fail() {
  say "$*"
  echo 125 >"$dir/exit_code"
  exit 125
}

# The kernel leaves it "(none)"; reports and logs read better with a name.
echo "rxe-vm-$RXE_VM_NAME" >/proc/sys/kernel/hostname

# ---- netdevs -----------------------------------------------------------------------------------
# No DAD: addresses (and so their GIDs) are usable at once, not after ~1 s of probing.
echo 0 >/proc/sys/net/ipv6/conf/all/accept_dad
echo 0 >/proc/sys/net/ipv6/conf/default/accept_dad

netdevs=()
ip_batch="link set lo up"$'\n'
rdma_batch=""
for ((i = 0; i < RXE_VM_NDEV; i++)); do
  case "$RXE_VM_NETDEV" in
  dummy*)
    nd="dummy$i"
    # dummy.ko already made dummy0 (numdummies=1 by default): adding it again fails with EEXIST.
    [[ -e "/sys/class/net/$nd" ]] || ip_batch+="link add $nd type dummy"$'\n'
    ;;
  *) nd="$RXE_VM_NETDEV" ;;
  esac
  netdevs+=("$nd")
  if [[ "$nd" != lo ]]; then
    [[ -e "/proc/sys/net/ipv6/conf/$nd/accept_dad" ]] &&
      echo 0 >"/proc/sys/net/ipv6/conf/$nd/accept_dad"
    ip_batch+="addr add ${RXE_VM_ADDRS[i]} dev $nd"$'\n'"link set $nd up"$'\n'
  fi
  rdma_batch+="link add rxe$i type rxe netdev $nd"$'\n'
done
ip -batch - <<<"$ip_batch" || fail "network setup failed: $ip_batch"
mark "netdevs up"
# A dummy made by the batch above had the old accept_dad when it was created; it has no global
# IPv6 address, and its link-local one gets no DAD because dummy is IFF_NOARP.
rdma -b - <<<"$rdma_batch" || fail "rdma link add failed: $rdma_batch"
mark "rxe added"

# ---- wait for the GID tables -------------------------------------------------------------------
# The GID cache is filled asynchronously from netdev events. Wait until each rxe device has its
# IPv4-mapped GID and as many populated entries as its netdev has addresses, so that commands
# see a stable table. Also finds the index of the IPv4-mapped RoCE v2 GID (pitfall 7).
# Polled with shell builtins only (read, and read -t on a silent pipe as the sleep): a process
# per poll costs ~50-200 ms under TCG. A fresh table fills from index 0 up, so the first 16 of
# the 1024 entries are enough.
exec {never_fd}<> <(:)
snooze() { read -r -t "$1" -u "$never_fd" _ || true; }
mapped_gid() {
  local a b c d
  IFS=. read -r a b c d <<<"${1%/*}"
  printf -v "$2" '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d"
}
zero_gid=0000:0000:0000:0000:0000:0000:0000:0000
gid_indexes=()
for ((i = 0; i < RXE_VM_NDEV; i++)); do
  nd="${netdevs[i]}"
  want_gid=""
  if [[ "$nd" == lo ]]; then
    mapped_gid 127.0.0.1 want_gid
  else
    mapped_gid "${RXE_VM_ADDRS[i]}" want_gid
  fi
  mapfile -t addrs < <(ip -o addr show dev "$nd")
  found=""
  deadline=$((SECONDS + 20))
  while ((SECONDS < deadline)); do
    n_gid=0
    for ((g = 0; g < 16; g++)); do
      read -r gid <"/sys/class/infiniband/rxe$i/ports/1/gids/$g" 2>/dev/null || continue
      [[ "$gid" != "$zero_gid" ]] && ((++n_gid))
      [[ "$gid" == "$want_gid" ]] && found=$g
    done
    [[ -n "$found" ]] && ((n_gid >= ${#addrs[@]})) && break
    found=""
    snooze 0.02
  done
  [[ -n "$found" ]] || fail "rxe$i: no GID $want_gid within 20 s"
  gid_indexes+=("$found")
done
mark "rxe ready"
: >"$dir/ready"

# ---- the command ------------------------------------------------------------------------------
devices=""
for ((i = 0; i < RXE_VM_NDEV; i++)); do devices+="${devices:+ }rxe$i"; done
local_ip="${RXE_VM_ADDRS[0]%/*}"
[[ "$RXE_VM_NETDEV" == lo ]] && local_ip=127.0.0.1
run_env=(
  "PATH=$RXE_VM_PATH" HOME=/root LANG=C.UTF-8 TERM=dumb
  "RXE_VM_NAME=$RXE_VM_NAME" "RXE_VM_TOPOLOGY=$RXE_VM_TOPOLOGY" "RXE_VM_ACCEL=$RXE_VM_ACCEL"
  "RXE_VM_NETDEV=${netdevs[0]}" "RXE_VM_DEVICES=$devices" "RXE_VM_IP=$local_ip"
  "RXE_VM_GID_INDEX=${gid_indexes[0]}" "RXE_VM_GID_INDEXES=${gid_indexes[*]}"
  "RXE_VM_PEER_IP=${RXE_VM_PEER_IP:-}"
  "RXE_VM_HOST_WORKDIR=$RXE_VM_WORKDIR" "RXE_VM_DIR=$dir"
)
cd "$RXE_VM_CWD" 2>/dev/null || cd /

if [[ "$RXE_VM_ROLE" == main ]]; then
  if [[ -n "${RXE_VM_PEER_DIR:-}" ]]; then
    # Start only when the peer's rxe device is up, so the command may connect at once.
    deadline=$((SECONDS + 120))
    while ((SECONDS < deadline)); do
      [[ -e "$RXE_VM_PEER_DIR/ready" ]] && break
      [[ -e "$RXE_VM_PEER_DIR/exit_code" ]] &&
        fail "the peer VM failed: $(cat "$RXE_VM_PEER_DIR/exit_code")"
      sleep 0.1
    done
    [[ -e "$RXE_VM_PEER_DIR/ready" ]] || fail "the peer VM did not get ready within 120 s"
  fi
  mark "command"
  env -i "${run_env[@]}" "${RXE_VM_ENV[@]}" "${RXE_VM_CMD[@]}" </dev/null >"$dir/output.log" 2>&1
  rc=$?
  mark "command exited: $rc"
  echo "$rc" >"$dir/exit_code"
  exit "$rc"
fi

# Peer: run the peer command (if any) until the main VM's command is done, then stop it.
pid=""
if [[ -n "${RXE_VM_PEER_CMD:-}" ]]; then
  env -i "${run_env[@]}" "${RXE_VM_ENV[@]}" bash -c "$RXE_VM_PEER_CMD" </dev/null \
    >"$dir/output.log" 2>&1 &
  pid=$!
fi
rc=""
while [[ ! -e "$RXE_VM_MAIN_DIR/exit_code" ]]; do
  if [[ -n "$pid" && -z "$rc" ]] && ! kill -0 "$pid" 2>/dev/null; then
    wait "$pid"
    rc=$?
  fi
  sleep 0.2
done
if [[ -n "$pid" && -z "$rc" ]]; then
  kill "$pid" 2>/dev/null
  wait "$pid"
  rc=$?
fi
echo "${rc:-0}" >"$dir/exit_code"
exit "${rc:-0}"
