# Repository checks: plain scripts over the tracked files, no build needed. Labelled "repo",
# not "unit": scripts/test.sh runs the unit binary itself and leaves "unit" out of ctest.
# no_external_citations: every citation points at a primary source or the repository's own
# docs (issue #19), never at a document outside the repository.
add_test(NAME repo.no_external_citations
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/no_external_citations.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(repo.no_external_citations PROPERTIES LABELS repo SKIP_RETURN_CODE 77
                     TIMEOUT 30)
