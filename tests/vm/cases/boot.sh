#!/bin/bash
# Host side: rxe-run boots, runs a command against a real rxe device and propagates its output
# and exit code (non-zero and zero), keeps guest writes away from the host except in the shared
# work dir, and its watchdog turns a hung command into 124 without leaving qemu behind.
# A skip of rxe-run (77: qemu cannot run here) is passed on.
# shellcheck disable=SC2016 # the single-quoted commands expand inside the VM
set -euo pipefail

run="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/rxe-run"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
leak="/etc/rxe-vm-leak-test.$$"
[[ ! -e "$leak" ]] || fail "$leak exists before the test"

# 1. Non-zero exit code and the output of a real verbs program, plus the overlay: a write to
#    /etc in the guest must not reach the host.
rc=0
out=$("$run" -- bash -c 'echo "hello from $RXE_VM_NAME"; ibv_devinfo -d rxe0
  echo x >'"$leak"' && echo "wrote /etc"
  echo "workdir $RXE_VM_HOST_WORKDIR"; exit 7' 2>&1) || rc=$?
echo "$out"
((rc != 77)) || exit 77
((rc == 7)) || fail "exit code $rc, expected 7"
grep -qx 'hello from a' <<<"$out" || fail "the command's output is missing"
grep -q 'state:.*PORT_ACTIVE' <<<"$out" || fail "ibv_devinfo shows no active rxe0 port"
grep -qx 'wrote /etc' <<<"$out" || fail "the guest root is not writable (overlay)"
[[ ! -e "$leak" ]] || { rm -f "$leak"; fail "a guest write to /etc reached the host"; }
workdir=$(sed -n 's/^workdir //p' <<<"$out")
[[ -n "$workdir" && ! -e "$workdir" ]] || fail "the work dir $workdir was not removed"

# 2. Zero, with --keep: the shared work dir holds what the guest wrote.
rc=0
out=$("$run" --keep -- sh -c 'echo kept >"$RXE_VM_DIR/kept"' 2>&1) || rc=$?
echo "$out"
((rc == 0)) || fail "exit code $rc, expected 0"
workdir=$(sed -n 's/^rxe-run: kept the work dir: //p' <<<"$out")
[[ "$(cat "$workdir/vm-a/kept" 2>/dev/null)" == kept ]] || fail "guest write to RXE_VM_DIR lost"
[[ "$(cat "$workdir/vm-a/exit_code")" == 0 ]] || fail "exit_code file is not 0"
rm -rf "$workdir"

# 3. The watchdog: a command that outlives --timeout gives 124, and no qemu of ours remains.
rc=0
out=$("$run" --timeout 4 --keep -- sleep 600 2>&1) || rc=$?
echo "$out"
((rc == 124)) || fail "exit code $rc on timeout, expected 124"
workdir=$(sed -n 's/^rxe-run: kept the work dir: //p' <<<"$out")
[[ -d "$workdir" ]] || fail "no kept work dir after the timeout"
# Our qemu had this work dir in its command line; none may be left.
if pgrep -f "path=$workdir" >/dev/null; then
  fail "a qemu for $workdir is still running after the timeout"
fi
rm -rf "$workdir"
echo "PASS: exit codes 7, 0 and 124 (timeout) propagate; overlay keeps guest writes off the host"
