# Package suite: builds the .deb with CPack, installs it with dpkg, runs what it installed, and
# removes it again (package_test.sh). Needs root and dpkg; skips (77) with the reason otherwise,
# and under sanitizer builds (an ASan binary is not what ships). Run alone: ctest -L package.
set(_package_dir ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME package.deb
         COMMAND ${_package_dir}/package_test.sh ${CMAKE_BINARY_DIR} "${RDMATOP_SANITIZE}")
add_test(NAME package.completion
         COMMAND ${_package_dir}/completion_test.sh $<TARGET_FILE:rdmatop> ${CMAKE_BINARY_DIR}/dist)
# dpkg takes one lock per machine: never two package tests at once (ctest -j).
set_tests_properties(package.deb package.completion PROPERTIES LABELS package SKIP_RETURN_CODE 77
                     TIMEOUT 600 RESOURCE_LOCK dpkg)
