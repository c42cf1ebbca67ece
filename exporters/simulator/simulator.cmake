# Included by exporters/CMakeLists.txt. The simulator's built-in scenarios are compiled in with
# the rule pack's embedding script (rules/embed_builtin.cmake), and scenario files are YAML.
file(GLOB SIMULATOR_SCENARIO_YAML CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/scenarios/*.yaml)
set(SIMULATOR_SCENARIOS_CPP ${CMAKE_CURRENT_BINARY_DIR}/builtin_scenarios_data.cpp)
add_custom_command(
  OUTPUT ${SIMULATOR_SCENARIOS_CPP}
  COMMAND ${CMAKE_COMMAND} -DOUTPUT=${SIMULATOR_SCENARIOS_CPP}
          -DINPUT_DIR=${CMAKE_CURRENT_LIST_DIR}/scenarios
          -DHEADER=exporters/simulator/builtin_scenarios.h
          -DFUNCTION=builtin_scenario_files
          -P ${PROJECT_SOURCE_DIR}/rules/embed_builtin.cmake
  DEPENDS ${SIMULATOR_SCENARIO_YAML} ${PROJECT_SOURCE_DIR}/rules/embed_builtin.cmake
  COMMENT "Embedding the built-in simulator scenarios"
  VERBATIM)
target_sources(rdmatop_exporters PRIVATE ${SIMULATOR_SCENARIOS_CPP})
target_link_libraries(rdmatop_exporters PRIVATE yaml-cpp)
