# One short fuzzing run: copies the seed corpus CORPUS to SCRATCH (new inputs land there, not in
# the source tree) and runs FUZZER over it with FLAGS; crash inputs are written to SCRATCH too.
#
#   cmake -DFUZZER=<binary> -DCORPUS=<dir> -DSCRATCH=<dir> -DFLAGS=<flag|...> -P run_fuzzer.cmake
foreach(var FUZZER CORPUS SCRATCH)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_fuzzer.cmake: ${var} is required")
  endif()
endforeach()
string(REPLACE "|" ";" flags "${FLAGS}")
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH}/corpus ${SCRATCH}/crashes)
file(GLOB seeds ${CORPUS}/*)
file(COPY ${seeds} DESTINATION ${SCRATCH}/corpus)
execute_process(COMMAND ${FUZZER} ${flags} -artifact_prefix=${SCRATCH}/crashes/ ${SCRATCH}/corpus
                RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${FUZZER} failed (${result}); the input is in ${SCRATCH}/crashes")
endif()
