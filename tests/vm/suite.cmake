# VM suite (label "vm"): real rdma_rxe in a QEMU VM booted from a stock Debian kernel; see
# docs/vm.md. Included by tests/CMakeLists.txt. `ctest -L vm` runs it alone.
#
# Every test runs tests/vm/rxe-run, which exits 77 (SKIP_RETURN_CODE) with the reason when qemu
# cannot run here; RDMATOP_VM_REQUIRE=1 in the environment turns that into a failure. Each VM
# uses 2 vCPUs, hence PROCESSORS 2: under `ctest -j2` VM tests run one at a time instead of
# starving each other. rxe-run's own watchdog (--timeout) fires before CTest's TIMEOUT so that
# a hang ends with the guest console in the log.

set(RDMATOP_VM_DIR ${CMAKE_CURRENT_LIST_DIR})
set(RDMATOP_VM_RUN ${RDMATOP_VM_DIR}/rxe-run)
set(RDMATOP_VM_CASES ${RDMATOP_VM_DIR}/cases)

# Downloads and unpacks the guest kernel once (first run ~10 s, then ~0.1 s), so that no VM
# test pays for it inside its own timeout.
add_test(NAME vm.prepare_kernel COMMAND ${RDMATOP_VM_RUN} --prepare)
set_tests_properties(vm.prepare_kernel PROPERTIES LABELS vm SKIP_RETURN_CODE 77 TIMEOUT 600
                                                  FIXTURES_SETUP rdmatop_vm_kernel)

set(RDMATOP_VM_TESTS vm.boot)
add_test(NAME vm.boot COMMAND bash ${RDMATOP_VM_CASES}/boot.sh)

# Two VMs joined by a virtual link, netem in one of them.
list(APPEND RDMATOP_VM_TESTS vm.link_netem)
add_test(NAME vm.link_netem
         COMMAND ${RDMATOP_VM_RUN} --topology two --timeout 240
                 --peer-cmd "bash ${RDMATOP_VM_CASES}/link-netem.sh"
                 -- bash ${RDMATOP_VM_CASES}/link-netem.sh)

if(TARGET rdmatop)
  list(APPEND RDMATOP_VM_TESTS vm.sysfs_collector vm.report_traffic)
  add_test(NAME vm.sysfs_collector
           COMMAND ${RDMATOP_VM_RUN} --devices 2 --timeout 240
                   -- bash ${RDMATOP_VM_CASES}/sysfs-collector.sh $<TARGET_FILE:rdmatop>)
  add_test(NAME vm.report_traffic
           COMMAND ${RDMATOP_VM_RUN} --timeout 240
                   -- bash ${RDMATOP_VM_CASES}/report-traffic.sh $<TARGET_FILE:rdmatop>)
  # rdmatop capture inside the VM, report --capture on the bundle outside it (docs/capture.md).
  list(APPEND RDMATOP_VM_TESTS vm.capture_roundtrip)
  add_test(NAME vm.capture_roundtrip
           COMMAND bash ${RDMATOP_VM_CASES}/capture-roundtrip.sh ${RDMATOP_VM_RUN}
                   $<TARGET_FILE:rdmatop>)
  list(APPEND RDMATOP_VM_TESTS vm.netlink)
  add_test(NAME vm.netlink
           COMMAND ${RDMATOP_VM_RUN} --devices 2 --timeout 240
                   -- bash ${RDMATOP_VM_CASES}/netlink.sh $<TARGET_FILE:rdmatop>)
  # Active probes (docs/probes.md): RC RTT against perftest, netem across two VMs, reconnect.
  list(APPEND RDMATOP_VM_TESTS vm.probe_latency vm.probe_netem vm.probe_reconnect)
  add_test(NAME vm.probe_latency
           COMMAND ${RDMATOP_VM_RUN} --timeout 400
                   -- bash ${RDMATOP_VM_CASES}/probe-latency.sh $<TARGET_FILE:rdmatop>)
  add_test(NAME vm.probe_netem
           COMMAND ${RDMATOP_VM_RUN} --topology two --timeout 240
                   --peer-cmd "bash ${RDMATOP_VM_CASES}/probe-netem.sh $<TARGET_FILE:rdmatop>"
                   -- bash ${RDMATOP_VM_CASES}/probe-netem.sh $<TARGET_FILE:rdmatop>)
  add_test(NAME vm.probe_reconnect
           COMMAND ${RDMATOP_VM_RUN} --timeout 240
                   -- bash ${RDMATOP_VM_CASES}/probe-reconnect.sh $<TARGET_FILE:rdmatop>)
  # Per-QP counter binding of the probe QPs: rxe refuses it; the reason against iproute2's.
  list(APPEND RDMATOP_VM_TESTS vm.probe_qp_counter)
  add_test(NAME vm.probe_qp_counter
           COMMAND ${RDMATOP_VM_RUN} --timeout 240
                   -- bash ${RDMATOP_VM_CASES}/probe-qp-counter.sh $<TARGET_FILE:rdmatop>)
  # The responder against hostile peers (garbage, truncation, floods, foreign rdma_cm clients).
  list(APPEND RDMATOP_VM_TESTS vm.probe_responder)
  add_test(NAME vm.probe_responder
           COMMAND ${RDMATOP_VM_RUN} --timeout 240
                   -- bash ${RDMATOP_VM_CASES}/probe-responder.sh $<TARGET_FILE:rdmatop>)
  # Host readiness: the processes holding RDMA objects against `rdma resource show`.
  list(APPEND RDMATOP_VM_TESTS vm.rdma_processes)
  add_test(NAME vm.rdma_processes
           COMMAND ${RDMATOP_VM_RUN} --timeout 240
                   -- bash ${RDMATOP_VM_CASES}/rdma-processes.sh $<TARGET_FILE:rdmatop>)
  # GID tables read again on rtnetlink's announcements, not at the 60 s refresh.
  list(APPEND RDMATOP_VM_TESTS vm.gid_announced)
  add_test(NAME vm.gid_announced
           COMMAND ${RDMATOP_VM_RUN} --timeout 240
                   -- bash ${RDMATOP_VM_CASES}/gid-announced.sh $<TARGET_FILE:rdmatop>)
endif()

set_tests_properties(${RDMATOP_VM_TESTS} PROPERTIES LABELS vm SKIP_RETURN_CODE 77 TIMEOUT 280
                                                    PROCESSORS 2
                                                    FIXTURES_REQUIRED rdmatop_vm_kernel)
# Up to twice its rounds when busy-polling rounds starve (probe-latency.sh).
if(vm.probe_latency IN_LIST RDMATOP_VM_TESTS)
  set_tests_properties(vm.probe_latency PROPERTIES TIMEOUT 440)
endif()
