# Recording end to end: the real binary records a fixture host for a few ticks (or the
# simulator with --demo), then `rdmatop report --from` diagnoses the file (plain, gzip,
# truncated, --at/--window) or the set of rotated files as one timeline.
add_executable(rdmatop_recording_tests ${CMAKE_CURRENT_LIST_DIR}/record_replay_test.cpp)
target_link_libraries(rdmatop_recording_tests PRIVATE rdmatop_catch_main rdmatop_flags
                                                     nlohmann_json::nlohmann_json)
target_compile_definitions(rdmatop_recording_tests
  PRIVATE RDMATOP_SOURCE_DIR="${PROJECT_SOURCE_DIR}" RDMATOP_BINARY="$<TARGET_FILE:rdmatop>")
add_dependencies(rdmatop_recording_tests rdmatop)
catch_discover_tests(rdmatop_recording_tests PROPERTIES LABELS recording)
