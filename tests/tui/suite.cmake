# The terminal UI end to end: the real rdmatop in a detached tmux pane on `rdmatop demo` and on
# the mlx5 fixture host (tests/tui/tui_tmux_test.sh, one CTest per case), and batch mode
# against a golden. Label: tui.
# Cases without tmux skip loudly (exit 77).
set(_tui_cases demo probes ports sort filter detail findings help resize monochrome pause sigint sigterm dumb)
foreach(_case ${_tui_cases})
  add_test(NAME tui.tmux.${_case}
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/tui_tmux_test.sh $<TARGET_FILE:rdmatop>
                   ${PROJECT_SOURCE_DIR} ${_case})
  set_tests_properties(tui.tmux.${_case} PROPERTIES LABELS tui SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()
add_test(NAME tui.batch.mlx5
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/batch_test.sh $<TARGET_FILE:rdmatop> ${PROJECT_SOURCE_DIR})
set_tests_properties(tui.batch.mlx5 PROPERTIES LABELS tui TIMEOUT 60)
