# Repository checks: plain scripts over the tracked files, no build needed. Labelled "repo",
# not "unit": scripts/test.sh runs the unit binary itself and leaves "unit" out of ctest.
# no_external_citations: every citation points at a primary source or the repository's own
# docs (issue #19), never at a document outside the repository.
add_test(NAME repo.no_external_citations
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/no_external_citations.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(repo.no_external_citations PROPERTIES LABELS repo SKIP_RETURN_CODE 77
                     TIMEOUT 30)
# layering (issue #19): every first-party #include against the layers' allowed arrows
# (docs/architecture.md), with the shrinking allow-list tests/repo/layering_allow.txt; and its
# self-test, which shows the checker fails on each forbidden arrow. Label "repo", not "unit":
# scripts/test.sh runs every label but vm, package and unit through ctest (the unit cases run in
# the unit binary's own process), so a "unit" label would keep a script out of CI.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  add_test(NAME repo.layering
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/layering.py
                   --root ${PROJECT_SOURCE_DIR})
  add_test(NAME repo.layering_selftest
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/layering.py --self-test)
  set_tests_properties(repo.layering repo.layering_selftest PROPERTIES LABELS repo TIMEOUT 60)
endif()
# A check script of tests/repo/ run over this tree (repo.NAME) and on its own self-test
# (repo.NAME_selftest), which shows that it fails when it must.
function(rdmatop_repo_check name)
  add_test(NAME repo.${name}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${name}.py
                   --root ${PROJECT_SOURCE_DIR})
  add_test(NAME repo.${name}_selftest
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${name}.py --self-test)
  set_tests_properties(repo.${name} repo.${name}_selftest PROPERTIES LABELS repo TIMEOUT 60)
endfunction()
if(Python3_FOUND)
  # unit_mirror (issue #19): tests/unit/ mirrors the source tree (a file's unit test sits in the
  # mirror of the file's folder).
  rdmatop_repo_check(unit_mirror)
  # cmake_sources (issue #19): every layer's target lists its sources, none globbed.
  rdmatop_repo_check(cmake_sources)
endif()
