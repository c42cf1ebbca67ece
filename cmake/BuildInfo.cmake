# Build identification for `rdmatop --version` (cli/build_info.h), computed at configure time:
#  - RDMATOP_GIT_DESCRIBE / RDMATOP_GIT_COMMIT: `git describe --tags --always` and
#    `git rev-parse HEAD` of the source tree; "unknown" when it is not a git checkout (a release
#    tarball), unless given on the command line (-DRDMATOP_GIT_COMMIT=...), as a distribution's
#    build would.
#  - RDMATOP_BUILD_DATE: string(TIMESTAMP ... UTC), which CMake takes from SOURCE_DATE_EPOCH
#    when that is set (CMake manual, string(TIMESTAMP); https://reproducible-builds.org/specs/
#    source-date-epoch/), so a reproducible build pins it.
# CMake re-runs (and the one generated file changes) when HEAD moves: the git log of HEAD is a
# configure dependency. Only cli/build_info.cpp includes the values, so a commit recompiles one
# file.
find_package(Git QUIET)
set(_describe "")
set(_commit "")
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse HEAD
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE _commit OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE _rc ERROR_QUIET)
  if(_rc EQUAL 0)
    execute_process(COMMAND ${GIT_EXECUTABLE} describe --tags --always
                    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                    OUTPUT_VARIABLE _describe OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --absolute-git-dir
                    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                    OUTPUT_VARIABLE _git_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    foreach(_dep ${_git_dir}/HEAD ${_git_dir}/logs/HEAD)
      if(EXISTS ${_dep})
        set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                     ${_dep})
      endif()
    endforeach()
  else()
    set(_commit "")
  endif()
endif()
if(NOT DEFINED RDMATOP_GIT_COMMIT)
  set(RDMATOP_GIT_COMMIT "${_commit}")
endif()
if(NOT DEFINED RDMATOP_GIT_DESCRIBE)
  set(RDMATOP_GIT_DESCRIBE "${_describe}")
endif()
if(RDMATOP_GIT_COMMIT STREQUAL "")
  set(RDMATOP_GIT_COMMIT "unknown")
endif()
if(RDMATOP_GIT_DESCRIBE STREQUAL "")
  set(RDMATOP_GIT_DESCRIBE "${RDMATOP_GIT_COMMIT}")
endif()
string(TIMESTAMP RDMATOP_BUILD_DATE "%Y-%m-%dT%H:%M:%SZ" UTC)
