# End-to-end goldens: the real rdmatop binary on every fixture host, diffed against
# tests/e2e/golden. Update after a reviewed change with:
#   RDMATOP_UPDATE_GOLDEN=1 ctest --test-dir build -L e2e
# real_capture_test.cpp scores rdmatop on the real-host captures under tests/fixtures/real/
# (expected.yaml per set, read with yaml-cpp).
add_executable(rdmatop_e2e_tests ${CMAKE_CURRENT_LIST_DIR}/report_golden_test.cpp
                                 ${CMAKE_CURRENT_LIST_DIR}/real_capture_test.cpp)
target_link_libraries(rdmatop_e2e_tests PRIVATE rdmatop_catch_main rdmatop_flags
                                               nlohmann_json::nlohmann_json yaml-cpp)
target_compile_definitions(rdmatop_e2e_tests
  PRIVATE RDMATOP_SOURCE_DIR="${PROJECT_SOURCE_DIR}" RDMATOP_BINARY="$<TARGET_FILE:rdmatop>")
add_dependencies(rdmatop_e2e_tests rdmatop)
catch_discover_tests(rdmatop_e2e_tests PROPERTIES LABELS e2e)

# #22 load test: the TCP responder under a connection flood and trickling holders while a real
# prober keeps getting answers (loopback, about 25 s).
add_test(NAME e2e.responder_flood
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/responder_flood_test.sh $<TARGET_FILE:rdmatop>)
set_tests_properties(e2e.responder_flood PROPERTIES LABELS "e2e;load" SKIP_RETURN_CODE 77
                     TIMEOUT 120)
