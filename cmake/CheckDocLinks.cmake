# Fails when a source, CMake or Markdown file points at a document that is not in this
# repository. Everything a comment or a page cites must be followable from a fresh clone:
# upstream Kubernetes code by file and symbol, our own rules by a page under docs/.
#
#   cmake -DSCHEDHOST_ROOT=<source dir> -P cmake/CheckDocLinks.cmake
#
# Prints FILE:LINE: ... for every hit and exits non-zero when there is any. Skips itself and
# every build/ directory.
cmake_minimum_required(VERSION 3.20)

if(NOT DEFINED SCHEDHOST_ROOT)
  get_filename_component(SCHEDHOST_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
endif()

set(_dirs host sdk plugins tests bench docs cmake packaging profiles examples)
set(_globs)
foreach(_dir IN LISTS _dirs)
  foreach(_ext h hh hpp c cc cpp cxx inc cmake md txt toml json in sh)
    list(APPEND _globs "${SCHEDHOST_ROOT}/${_dir}/*.${_ext}")
  endforeach()
endforeach()
file(GLOB_RECURSE _files LIST_DIRECTORIES false ${_globs})
list(APPEND _files "${SCHEDHOST_ROOT}/README.md")

# Patterns of pointers to documents outside the repository.
set(_patterns "../shared" "reference §" "plugin-abi.md" "ecosystem.md" "kube-scheduler-1.36.md")

get_filename_component(_self "${CMAKE_CURRENT_LIST_FILE}" ABSOLUTE)
set(_hits 0)
foreach(_file IN LISTS _files)
  if(_file STREQUAL _self OR NOT EXISTS "${_file}")
    continue()
  endif()
  file(RELATIVE_PATH _rel "${SCHEDHOST_ROOT}" "${_file}")
  if(_rel MATCHES "(^|/)build/")
    continue()
  endif()
  file(READ "${_file}" _text)
  foreach(_pattern IN LISTS _patterns)
    string(FIND "${_text}" "${_pattern}" _at)
    set(_rest "${_text}")
    set(_line 1)
    while(NOT _at EQUAL -1)
      string(SUBSTRING "${_rest}" 0 ${_at} _before)
      string(REGEX MATCHALL "\n" _newlines "${_before}")
      list(LENGTH _newlines _count)
      math(EXPR _line "${_line} + ${_count}")
      message(NOTICE "${_rel}:${_line}: points outside the repository (\"${_pattern}\")")
      math(EXPR _hits "${_hits} + 1")
      string(LENGTH "${_pattern}" _skip)
      math(EXPR _skip "${_at} + ${_skip}")
      string(SUBSTRING "${_rest}" ${_skip} -1 _rest)
      string(FIND "${_rest}" "${_pattern}" _at)
    endwhile()
  endforeach()
endforeach()

if(_hits GREATER 0)
  message(FATAL_ERROR "${_hits} pointer(s) to documents outside the repository; cite upstream "
                      "code by file and symbol, or a page under docs/")
endif()
list(LENGTH _files _count)
message(STATUS "No pointers outside the repository in ${_count} files")
