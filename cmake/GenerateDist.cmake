# Generates, from the built binary, the files `cmake --install` ships besides it (run by the
# rdmatop_dist target of cmake/Install.cmake as `cmake -P`):
#   man/man1/rdmatop.1.gz, man/man1/rdmatop-SUB.1.gz  help2man(1) over `rdmatop [SUB] --help`,
#                                                      one page per subcommand of `--help`
#   completion/rdmatop, completion/_rdmatop            `rdmatop completion bash|zsh`
#   rules/rdmatop-rules.yaml                           `rdmatop rules export`
# The subcommand list is read from `rdmatop --help` itself, so a new subcommand gets its page
# without touching the build. Inputs: RDMATOP (binary), OUT (directory), VERSION, HELP2MAN
# (empty: no man pages, with a warning), STAMP.
cmake_minimum_required(VERSION 3.25)

function(run_or_die)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN} failed (${rc}): ${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${OUT}/man ${OUT}/completion ${OUT}/rules ${OUT}/wrappers)
file(MAKE_DIRECTORY ${OUT}/man/man1 ${OUT}/completion ${OUT}/rules ${OUT}/wrappers)

# The subcommands: CLI11 prints them after a "Subcommands:" line, one per line, indented.
run_or_die(${RDMATOP} --help)
set(help "${run_output}")
string(REGEX REPLACE "^.*\nSubcommands:\n" "" subs_block "${help}")
if(subs_block STREQUAL help)
  message(FATAL_ERROR "no Subcommands: section in `rdmatop --help`")
endif()
string(REGEX MATCHALL "(^|\n)  [a-z][a-z0-9-]*" sub_lines "${subs_block}")
set(subcommands "")
foreach(line ${sub_lines})
  string(STRIP "${line}" name)
  list(APPEND subcommands ${name})
endforeach()
if(NOT subcommands)
  message(FATAL_ERROR "no subcommands found in `rdmatop --help`")
endif()
file(WRITE ${OUT}/subcommands.txt "")
foreach(sub ${subcommands})
  file(APPEND ${OUT}/subcommands.txt "${sub}\n")
endforeach()

run_or_die(${RDMATOP} completion bash)
file(WRITE ${OUT}/completion/rdmatop "${run_output}")
run_or_die(${RDMATOP} completion zsh)
file(WRITE ${OUT}/completion/_rdmatop "${run_output}")
run_or_die(${RDMATOP} rules export --format prometheus -o ${OUT}/rules/rdmatop-rules.yaml)

if(HELP2MAN)
  # SEE ALSO on every page: the other pages and the documentation directory.
  set(see_also "[SEE ALSO]\n.BR rdmatop (1)")
  foreach(sub ${subcommands})
    string(APPEND see_also ",\n.BR rdmatop-${sub} (1)")
  endforeach()
  string(APPEND see_also "\n.PP\nThe full documentation is in /usr/share/doc/rdmatop/.\n")
  file(WRITE ${OUT}/wrappers/see-also.h2m "${see_also}")
  foreach(page rdmatop ${subcommands})
    if(page STREQUAL "rdmatop")
      set(command ${RDMATOP})
      # CLI11's first help line is the description: "rdmatop: RoCEv2 ...".
      string(REGEX MATCH "^[^\n]*" name "${help}")
      string(REGEX REPLACE "^rdmatop: *" "" name "${name}")
    else()
      # help2man runs one program with --help; the page of `rdmatop SUB` is made from a
      # two-line wrapper named rdmatop-SUB that runs it (help2man(1): the program name comes
      # from the executable's name when --version-string is given).
      set(command ${OUT}/wrappers/rdmatop-${page})
      file(WRITE ${command} "#!/bin/sh\nexec '${RDMATOP}' ${page} \"$@\"\n")
      file(CHMOD ${command} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
           GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
      run_or_die(${RDMATOP} ${page} --help)
      string(REGEX MATCH "^[^\n]*" name "${run_output}")
      set(page rdmatop-${page})
    endif()
    # help2man takes the page date from SOURCE_DATE_EPOCH when set (reproducible builds).
    run_or_die(${HELP2MAN} --no-info --section=1 --version-string=${VERSION}
               "--name=${name}" --include=${OUT}/wrappers/see-also.h2m
               --output=${OUT}/man/man1/${page}.1 ${command})
    # gzip -n: no file name or time stamp in the header, so the output is reproducible.
    run_or_die(gzip -n -9 -f ${OUT}/man/man1/${page}.1)
  endforeach()
else()
  message(WARNING "help2man not found (scripts/install-deps.sh installs it): no man pages")
endif()
file(WRITE ${STAMP} "${subcommands}\n")
