# The `scenarios` suite: each built-in simulator scenario (simulator/scenarios) is
# played through the real collectors, normalizer and rules; the test checks the rules its file
# expects fire in time (or, for quiet scenarios, that nothing warns). One CTest test per file.
add_executable(rdmatop_scenario_tests ${CMAKE_CURRENT_LIST_DIR}/scenario_test.cpp)
target_link_libraries(rdmatop_scenario_tests PRIVATE rdmatop_catch_main rdmatop_cli rdmatop_flags)
file(GLOB RDMATOP_SCENARIO_FILES CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/simulator/scenarios/*.yaml)
foreach(file ${RDMATOP_SCENARIO_FILES})
  # "02-pfc-storm.yaml" -> "pfc-storm" (the file's `name:` by convention; the test fails on a
  # name that matches no scenario).
  get_filename_component(stem ${file} NAME_WE)
  string(REGEX REPLACE "^[0-9]+-" "" name ${stem})
  add_test(NAME scenario.${name} COMMAND rdmatop_scenario_tests)
  set_tests_properties(scenario.${name} PROPERTIES LABELS scenarios
                       ENVIRONMENT RDMATOP_SCENARIO=${name})
endforeach()
# The demo command plays a scenario non-interactively (stdout is not a terminal under CTest)
# and reports the storm it found.
add_test(NAME scenario.demo-command COMMAND rdmatop demo pfc-storm)
set_tests_properties(scenario.demo-command PROPERTIES LABELS scenarios
                     PASS_REGULAR_EXPRESSION "RdmaPfcStormFromNic +mlx5_0/1 priority 3")
# The host-readiness demo shows the simulated processes in the report's HOST READINESS section,
# read by the real process collector from the simulated RDMA netlink dumps and procfs.
# Its "worst moment" must be when the rules fire, not tick 1 when they only turned pending.
add_test(NAME scenario.demo-host-readiness COMMAND rdmatop demo host-readiness)
set_tests_properties(scenario.demo-host-readiness PROPERTIES LABELS scenarios
                     PASS_REGULAR_EXPRESSION "3377 +kv-server +bnxt_re0 .* 1 \\(remote\\)"
                     FAIL_REGULAR_EXPRESSION "== demo host-readiness: tick 1,")
# `rdmatop report` at its default interval on a storm and a deadlock that start inside it: the
# PFC fast path names the per-priority finding (the 1-minute rules cannot within 5 s), and with
# --fast-interval 0 the same report has no such finding.
add_test(NAME scenario.report-fast-path-storm
         COMMAND rdmatop report --demo ${CMAKE_CURRENT_LIST_DIR}/storm-in-first-tick.yaml)
set_tests_properties(scenario.report-fast-path-storm PROPERTIES LABELS scenarios
                     PASS_REGULAR_EXPRESSION "CRITICAL +firing +RdmaPfcStormFromNic +mlx5_0/1 priority 3")
add_test(NAME scenario.report-fast-path-deadlock
         COMMAND rdmatop report --demo ${CMAKE_CURRENT_LIST_DIR}/deadlock-in-first-tick.yaml)
set_tests_properties(scenario.report-fast-path-deadlock PROPERTIES LABELS scenarios
                     PASS_REGULAR_EXPRESSION "CRITICAL +firing +RdmaPfcDeadlockSuspected +mlx5_0/1 priority 3")
add_test(NAME scenario.report-fast-path-off
         COMMAND rdmatop report --demo ${CMAKE_CURRENT_LIST_DIR}/storm-in-first-tick.yaml
                 --fast-interval 0)
set_tests_properties(scenario.report-fast-path-off PROPERTIES LABELS scenarios
                     PASS_REGULAR_EXPRESSION "FINDINGS"
                     FAIL_REGULAR_EXPRESSION "RdmaPfcStormFromNic|FAST PATH")
