# PromQL conformance (issue #21): Prometheus's own promql/testdata cases, converted to promtool's
# rule-test format (cases/, by convert.py), through promtool and rdmatop's engine. Fails when a
# case promtool passes fails in rdmatop (unless listed, with its reason, in known_failures.txt).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  add_test(NAME rules.promql_conformance
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/run.py --rdmatop
                   $<TARGET_FILE:rdmatop> --jobs 2)
  set_tests_properties(rules.promql_conformance PROPERTIES LABELS rules SKIP_RETURN_CODE 77
                                                           TIMEOUT 900)
endif()
