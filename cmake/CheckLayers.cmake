# Checks the include graph against the layer table (run as `cmake -P`, registered as the
# layers.check test):
#
#   cmake -DROOT=<source tree> -DTABLE=<layer table> -P cmake/CheckLayers.cmake
#
# TABLE is the file schedhost_write_layer_table() writes at configure time from the
# schedhost_host_layer() calls (cmake/SchedhostLayers.cmake): SCHEDHOST_LAYERS lists the folders
# of host/, SCHEDHOST_LAYER_<folder> the folders it may include. The rules:
#   - a file in host/<folder>/ includes "host/<other>/..." only if <other> is <folder> or one of
#     its declared layers, and host/ holds no folder the table does not declare;
#   - a file under plugins/ includes <schedhost/...>, standard and system headers, and headers of
#     its own plugin folder only: no "host/..." (nor tests/, bench/, plugins/ paths).
# Every violation is reported as <file>:<line>: <include>; the script fails if there is one.
cmake_minimum_required(VERSION 3.25)

if(NOT ROOT OR NOT TABLE)
  message(FATAL_ERROR "usage: cmake -DROOT=<source tree> -DTABLE=<layer table> -P CheckLayers.cmake")
endif()
include(${TABLE})

set(violations 0)
set(include_regex "^[ \t]*#[ \t]*include[ \t]*([<\"])([^>\"]*)[>\"]")

# Reports every line of <file> that includes <target> (the path as written).
function(report file target why)
  file(READ ${ROOT}/${file} text)
  # One list element per line: neutralize the characters CMake lists treat specially.
  string(REPLACE "\\" "/" text "${text}")
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "[" "(" text "${text}")
  string(REPLACE "]" ")" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(line MATCHES "${include_regex}" AND CMAKE_MATCH_2 STREQUAL target)
      string(STRIP "${line}" line)
      message(NOTICE "${file}:${number}: ${line}: ${why}")
    endif()
  endforeach()
endfunction()

# Calls back with every include of <file>: sets `kind` (< or ") and `path`.
macro(for_each_include file)
  file(STRINGS ${ROOT}/${file} _includes REGEX "${include_regex}")
  set(_paths)
  foreach(_line IN LISTS _includes)
    if(_line MATCHES "${include_regex}")
      list(APPEND _paths "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES _paths)
endmacro()

# host/: each folder against its declared layers.
file(GLOB host_entries LIST_DIRECTORIES true RELATIVE ${ROOT}/host ${ROOT}/host/*)
foreach(entry IN LISTS host_entries)
  if(IS_DIRECTORY ${ROOT}/host/${entry} AND NOT entry IN_LIST SCHEDHOST_LAYERS)
    message(NOTICE "host/${entry}/: not a declared layer (add a schedhost_host_layer() call)")
    math(EXPR violations "${violations} + 1")
  endif()
endforeach()

file(GLOB_RECURSE host_files RELATIVE ${ROOT} ${ROOT}/host/*.h ${ROOT}/host/*.hpp ${ROOT}/host/*.cc
     ${ROOT}/host/*.cpp ${ROOT}/host/*.c)
list(SORT host_files)
foreach(file IN LISTS host_files)
  string(REGEX REPLACE "^host/([^/]+)/.*" "\\1" folder "${file}")
  if(folder STREQUAL file)
    continue()  # a file directly in host/
  endif()
  set(allowed ${folder} ${SCHEDHOST_LAYER_${folder}})
  list(JOIN SCHEDHOST_LAYER_${folder} ", " declared)
  if(NOT declared)
    set(declared "none")
  endif()
  for_each_include(${file})
  foreach(path IN LISTS _paths)
    string(SUBSTRING "${path}" 1 -1 target)
    if(target MATCHES "^host/([^/]+)/" AND NOT CMAKE_MATCH_1 IN_LIST allowed)
      set(other ${CMAKE_MATCH_1})
      report(${file} "${target}" "host/${folder} may not include host/${other} (declared: ${declared})")
      math(EXPR violations "${violations} + 1")
    endif()
  endforeach()
endforeach()

# plugins/: the SDK, the standard library and the plugin's own headers only.
file(GLOB_RECURSE plugin_files RELATIVE ${ROOT} ${ROOT}/plugins/*.h ${ROOT}/plugins/*.hpp
     ${ROOT}/plugins/*.cc ${ROOT}/plugins/*.cpp ${ROOT}/plugins/*.c)
list(SORT plugin_files)
foreach(file IN LISTS plugin_files)
  string(REGEX REPLACE "^(plugins/[^/]+)/.*" "\\1" plugin_dir "${file}")
  get_filename_component(file_dir ${file} DIRECTORY)
  for_each_include(${file})
  foreach(path IN LISTS _paths)
    string(SUBSTRING "${path}" 0 1 kind)
    string(SUBSTRING "${path}" 1 -1 target)
    set(why)
    if(target MATCHES "^(host|tests|bench|plugins|sdk)/")
      set(why "plugins include <schedhost/...>, never the project's ${CMAKE_MATCH_1}/")
    elseif(kind STREQUAL "\"")
      cmake_path(SET resolved NORMALIZE "${file_dir}/${target}")
      if(NOT EXISTS ${ROOT}/${resolved})
        set(why "a quoted include must name a header of the plugin's own folder")
      elseif(NOT resolved MATCHES "^${plugin_dir}/")
        set(why "a quoted include must stay inside ${plugin_dir}/")
      endif()
    endif()
    if(why)
      report(${file} "${target}" "${why}")
      math(EXPR violations "${violations} + 1")
    endif()
  endforeach()
endforeach()

if(violations GREATER 0)
  message(FATAL_ERROR "layers: ${violations} include(s) break the layer rules (see host/README.md)")
endif()
list(LENGTH host_files host_count)
list(LENGTH plugin_files plugin_count)
message(STATUS "layers: ${host_count} host files and ${plugin_count} plugin files follow the layer rules")
