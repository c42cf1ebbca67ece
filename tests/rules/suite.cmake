# Rules suite: every rule unit-test file runs through rdmatop's engine AND promtool, so the two
# engines are held to the same expected values; the exported pack must pass promtool check.
file(GLOB RULES_TEST_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/rules/builtin/*_test.yaml
     ${PROJECT_SOURCE_DIR}/rules/fleet/*_test.yaml ${PROJECT_SOURCE_DIR}/tests/rules/*_test.yaml)
set(_run ${CMAKE_CURRENT_LIST_DIR}/run.sh)
add_test(NAME rules.rdmatop_test COMMAND ${_run} rdmatop $<TARGET_FILE:rdmatop> ${RULES_TEST_FILES})
add_test(NAME rules.promtool_test COMMAND ${_run} promtool ${RULES_TEST_FILES})
add_test(NAME rules.export_promtool_check
         COMMAND ${_run} export $<TARGET_FILE:rdmatop> ${CMAKE_CURRENT_BINARY_DIR}/rules-export)
set_tests_properties(rules.rdmatop_test rules.promtool_test rules.export_promtool_check
                     PROPERTIES LABELS rules SKIP_RETURN_CODE 77)
# Multi-host variants (issue #20): every alert test of the shipped pack again with two faulty
# hosts and a healthy one (tests/rules/two_hosts.py), through both engines. The lifetime pack is
# left out: it reads totals since the counter started, is evaluated once on the host and is never
# exported to Prometheus (docs/rules.md, lifetime evidence).
file(GLOB BUILTIN_RULES_TESTS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/rules/builtin/*_test.yaml)
list(FILTER BUILTIN_RULES_TESTS EXCLUDE REGEX "/lifetime_test\\.yaml$")
add_test(NAME rules.multi_host
         COMMAND ${_run} hosts $<TARGET_FILE:rdmatop> ${CMAKE_CURRENT_BINARY_DIR}/multi-host
                 ${BUILTIN_RULES_TESTS})
set_tests_properties(rules.multi_host PROPERTIES LABELS rules SKIP_RETURN_CODE 77)
# Fleet scope (issue #20): no shipped rule joins or aggregates away `instance` unless labelled
# scope: fleet; the checker walks the parsed PromQL of the exported pack.
add_executable(rdmatop_fleet_scope_check ${CMAKE_CURRENT_LIST_DIR}/fleet_scope_check.cpp)
target_link_libraries(rdmatop_fleet_scope_check PRIVATE rdmatop_rules rdmatop_flags)
add_test(NAME rules.fleet_scope
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/fleet_scope.sh $<TARGET_FILE:rdmatop>
                 $<TARGET_FILE:rdmatop_fleet_scope_check> ${CMAKE_CURRENT_BINARY_DIR}/fleet-scope)
set_tests_properties(rules.fleet_scope PROPERTIES LABELS rules)
# Runbooks (issue #20): every exported and fleet alert has a page in docs/runbooks/ and a
# runbook_url naming it; the pages are fresh (scripts/gen-runbooks.py into a temporary directory).
add_test(NAME rules.runbooks
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/runbooks.sh $<TARGET_FILE:rdmatop>
                 ${CMAKE_CURRENT_BINARY_DIR}/runbooks)
set_tests_properties(rules.runbooks PROPERTIES LABELS rules)
