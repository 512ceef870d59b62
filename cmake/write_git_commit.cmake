# Writes OUT, a C++ source defining opctl::cli::git_commit(), from `git rev-parse HEAD` in SOURCE_DIR.
# Run at every build (not at configure), and the file is rewritten only when the commit changed, so an
# incremental build reports the commit it was built from and recompiles one file when that moves.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT commit)
  set(commit "unknown")
endif()
set(text "// Generated at build time by cmake/write_git_commit.cmake.\n#include \"git_commit.hpp\"\n\nnamespace opctl::cli {\nstd::string_view git_commit() { return \"${commit}\"; }\n}  // namespace opctl::cli\n")
if(EXISTS ${OUT})
  file(READ ${OUT} previous)
endif()
if(NOT "${previous}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
