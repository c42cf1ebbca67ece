# shellcheck shell=bash
# Helpers for the checks that run inside the rxe VM (sourced). Every process costs ~50 ms under
# TCG (softroce-vm.md pitfall 8), so these avoid per-item loops of external commands.

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# One hw_counters value of a port, read by the shell itself (no process).
hw_counter() { # device port name
  local v
  read -r v <"/sys/class/infiniband/$1/ports/$2/hw_counters/$3" || fail "cannot read $1/$2/$3"
  echo "$v"
}

# The client side of an ibv_rc_pingpong pair. The server is started in the background just
# before and needs a moment to listen (fork+exec is slow under TCG), so a refused connection is
# retried; any other failure is final. Prints the client's output.
rc_pingpong_client() { # server-ip [ibv_rc_pingpong options...]
  local ip="$1" out rc deadline=$((SECONDS + 60))
  shift
  while :; do
    rc=0
    out=$(ibv_rc_pingpong "$@" "$ip" 2>&1) || rc=$?
    ((rc == 0)) && break
    if [[ "$out" == *"Couldn't connect"* ]] && ((SECONDS < deadline)); then
      sleep 0.2
      continue
    fi
    echo "$out" >&2
    fail "ibv_rc_pingpong $* $ip exited $rc"
  done
  echo "$out"
}

# usec/iter from ibv_rc_pingpong's "N iters in S seconds = U usec/iter" line.
usec_per_iter() {
  awk '/usec\/iter/ { for (i = 1; i < NF; i++) if ($(i + 1) == "usec/iter") print $i }' <<<"$1"
}
