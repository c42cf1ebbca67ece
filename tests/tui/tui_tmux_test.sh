#!/usr/bin/env bash
# Drives the real rdmatop binary in a detached tmux pane on the mlx5 fixture host and asserts on
# what the pane shows (capture-pane). One case per invocation:
#   tui_tmux_test.sh RDMATOP_BINARY SOURCE_DIR CASE
# Each run uses its own tmux server (-L rdmatop-test-$$), killed on every exit path. Waits poll
# the pane with a generous limit (the machine is noisy); nothing asserts on timing.
set -u
binary=$1
source_dir=$2
case_name=$3

if ! command -v tmux >/dev/null 2>&1; then
  echo "SKIP: tmux is not installed"
  exit 77
fi

socket="rdmatop-test-$$"
status_file=$(mktemp)
cleanup() {
  tmux -L "$socket" kill-server >/dev/null 2>&1
  rm -f "$status_file"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

tm() { tmux -L "$socket" "$@"; }
pane() { tm capture-pane -p -t rdmatop; }

fail() {
  echo "FAIL [$case_name]: $*"
  echo "---- pane ----"
  pane
  echo "--------------"
  exit 1
}

# True when a line of stdin is wider than $1 characters (bash counts characters in a UTF-8 locale).
wider_than() {
  local line LC_ALL=C.UTF-8
  while IFS= read -r line; do
    [ "${#line}" -gt "$1" ] && return 0
  done
  return 1
}

# start_demo SCENARIO: `rdmatop demo SCENARIO` in a 120x40 pane, 5 s ticks played ten times a
# second.
start_demo() {
  tm new-session -d -s rdmatop -x 120 -y 40 \
    "env TERM=xterm-256color LANG=C.UTF-8 '$binary' demo $1 --speed 50; \
     echo \$? > '$status_file'; echo RDMATOP-EXITED; exec sleep 600"
}

# wait_for TEXT: poll the pane until it shows TEXT (fixed string), up to 20 s.
wait_for() {
  for _ in $(seq 1 100); do
    pane | grep -qF -- "$1" && return 0
    sleep 0.2
  done
  fail "pane never showed: $1"
}

wait_gone() {
  for _ in $(seq 1 100); do
    pane | grep -qF -- "$1" || return 0
    sleep 0.2
  done
  fail "pane still shows: $1"
}

# start [ENV...]: runs rdmatop on the fixture in a 120x40 pane; after it exits, the pane shows
# RDMATOP-EXITED and the exit status lands in $status_file.
start() {
  local fixture="$source_dir/tests/fixtures/hosts/mlx5"
  tm new-session -d -s rdmatop -x 120 -y 40 \
    "env TERM=xterm-256color $* '$binary' --sysfs-root '$fixture/sys' \
       --ethtool-dir '$fixture/ethtool' --interval 0.5 --no-builtin-rules \
       --rules '$source_dir/tests/tui/down_port_rule.yaml'; \
     echo \$? > '$status_file'; echo RDMATOP-EXITED; exec sleep 600"
  wait_for "mlx5_1/1"
}

expect_clean_exit() {
  wait_for "RDMATOP-EXITED"
  [ "$(cat "$status_file")" = "0" ] || fail "exit status $(cat "$status_file"), expected 0"
  # The alternate screen is gone: the shell's own output is back, the UI is not.
  pane | grep -qF "PORTS" && fail "the UI is still on screen after exit"
  return 0
}

case "$case_name" in
  demo)
    # A newcomer's path: `rdmatop demo`, the storm shows on the right port and priority, and
    # selecting the finding says why (evidence) and what to do (remediation). --speed 50 plays
    # the scenario's 5 s ticks ten times a second.
    start_demo pfc-storm
    wait_for "critical RdmaPfcStormFromNic"
    pane | grep -qE '^[> ] mlx5_0/1 .*critical RdmaPfcStormFromNic' ||
      fail "the storm is not on mlx5_0/1's row"
    pane | grep -qE 'RdmaPfcStormFromNic +mlx5_0/1 prio 3 ' ||
      fail "the storm finding does not name priority 3"
    tm send-keys -t rdmatop Tab
    tm send-keys -t rdmatop Enter
    wait_for "evidence: rdma_pfc_pause_seconds_total{device=mlx5_0,direction=tx"
    wait_for "remediation: Check the host receive path"
    tm send-keys -t rdmatop q
    expect_clean_exit
    ;;
  probes)
    # The probe panel on the simulated lossy link: the lossy RC stream to tor-1 shows loss next
    # to its TCP baseline, and the loss alert fires for it.
    start_demo probe-loss
    wait_for " PROBES  "
    wait_for "RdmaProbeLoss"
    pane | grep -qE '^  192\.168\.100\.2 \(tor-1\) +rc_send tc=106 +up +[0-9.]+(us|ms) +[0-9.]+(us|ms) +[0-9.]+x +[1-9][0-9.]*%' ||
      fail "the lossy rc_send stream to 192.168.100.2 shows no loss"
    tm send-keys -t rdmatop q
    expect_clean_exit
    ;;
  ports)
    start LANG=C.UTF-8
    wait_for "> mlx5_0/1"
    wait_for "DOWN"
    wait_for "critical TuiTestPortDown"
    wait_for "q:quit"
    tm send-keys -t rdmatop q
    expect_clean_exit
    ;;
  sort)
    start LANG=C.UTF-8
    # Descending by PORT (r) puts mlx5_1/1 above mlx5_0/1 and under the cursor.
    tm send-keys -t rdmatop r
    wait_for "sort PORT desc"
    wait_for "> mlx5_1/1"
    # Next column (>) is NETDEV.
    tm send-keys -t rdmatop '>'
    wait_for "sort NETDEV desc"
    tm send-keys -t rdmatop q
    expect_clean_exit
    ;;
  filter)
    start LANG=C.UTF-8
    tm send-keys -t rdmatop / e n s 1 f 1
    wait_for "Filter: ens1f1_"
    tm send-keys -t rdmatop Enter
    wait_for "PORTS] 1 of 2"
    wait_gone "mlx5_0/1"
    tm send-keys -t rdmatop Escape
    wait_for "PORTS] 2 of 2"
    tm send-keys -t rdmatop q
    expect_clean_exit
    ;;
  detail)
    start LANG=C.UTF-8
    tm send-keys -t rdmatop Enter
    wait_for "PORT mlx5_0/1"
    wait_for "PFC PER PRIORITY"
    wait_for "RX PAUSED"
    wait_for "GID TABLE"
    tm send-keys -t rdmatop Escape
    wait_for "[PORTS]"
    tm send-keys -t rdmatop q
    expect_clean_exit
    ;;
  findings)
    start LANG=C.UTF-8
    tm send-keys -t rdmatop Tab
    wait_for "[FINDINGS]"
    wait_for "> critical  TuiTestPortDown"
    wait_for "remediation: Check the cable and the switch port."
    tm send-keys -t rdmatop q
    expect_clean_exit
    ;;
  help)
    start LANG=C.UTF-8
    tm send-keys -t rdmatop '?'
    wait_for "HELP: keys"
    wait_for "pause / resume collection"
    tm send-keys -t rdmatop Escape
    wait_gone "HELP: keys"
    tm send-keys -t rdmatop q
    expect_clean_exit
    ;;
  resize)
    start LANG=C.UTF-8
    tm resize-window -t rdmatop -x 80 -y 24
    wait_for "RX PAUSE"
    wait_for "WORST FINDING"
    wait_for "q:quit"
    # Count characters, not bytes: the header elides a long source path with a UTF-8 "…".
    pane | wider_than 80 && fail "a line is wider than 80 columns"
    tm resize-window -t rdmatop -x 60 -y 20
    wait_for "needs at least 80x24"
    tm resize-window -t rdmatop -x 100 -y 30
    wait_for "> mlx5_0/1"
    tm send-keys -t rdmatop q
    expect_clean_exit
    ;;
  monochrome)
    # NO_COLOR and a non-UTF-8 locale: the detail view's sparklines fall back to ASCII.
    start LANG=C LC_ALL=C NO_COLOR=1
    tm send-keys -t rdmatop Enter
    wait_for "HISTORY"
    wait_for "__"
    pane | grep -q $'\xe2\x96' && fail "block elements drawn in a non-UTF-8 locale"
    tm send-keys -t rdmatop q
    expect_clean_exit
    ;;
  pause)
    start LANG=C.UTF-8
    tm send-keys -t rdmatop Space
    wait_for "[PAUSED]"
    tm send-keys -t rdmatop +
    wait_for "every 1s"
    tm send-keys -t rdmatop Space
    wait_gone "[PAUSED]"
    tm send-keys -t rdmatop q
    expect_clean_exit
    ;;
  sigint)
    start LANG=C.UTF-8
    tm send-keys -t rdmatop C-c
    expect_clean_exit
    ;;
  sigterm)
    start LANG=C.UTF-8
    pid=$(tm list-panes -t rdmatop -F '#{pane_pid}')
    child=$(pgrep -P "$pid" -f "$binary" | head -n 1)
    [ -n "$child" ] || fail "could not find the rdmatop process"
    kill -TERM "$child"
    expect_clean_exit
    ;;
  dumb)
    # A terminal without cursor addressing is refused with a hint, not painted with garbage.
    fixture="$source_dir/tests/fixtures/hosts/mlx5"
    tm new-session -d -s rdmatop -x 120 -y 40 \
      "env TERM=dumb '$binary' --sysfs-root '$fixture/sys' --ethtool-dir '$fixture/ethtool'; \
       echo \$? > '$status_file'; echo RDMATOP-EXITED; exec sleep 600"
    wait_for "RDMATOP-EXITED"
    wait_for "use -n N for batch mode"
    [ "$(cat "$status_file")" = "1" ] || fail "exit status $(cat "$status_file"), expected 1"
    ;;
  *)
    echo "unknown case: $case_name"
    exit 2
    ;;
esac
echo "PASS [$case_name]"
