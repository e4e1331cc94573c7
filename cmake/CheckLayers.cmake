# Checks the include graph against the layer table (run as `cmake -P`, registered as the
# layers.check test):
#
#   cmake -DROOT=<source tree> -DTABLE=<layer table> -P cmake/CheckLayers.cmake
#
# TABLE is the file schedhost_write_layer_table() writes at configure time from the
# schedhost_host_layer() calls (cmake/SchedhostLayers.cmake): SCHEDHOST_LAYERS lists the layers,
# SCHEDHOST_LAYER_<layer> the layers it may include, SCHEDHOST_LAYER_DIR_<layer> its folder
# under host/ (connectors, connectors/kube). A file, and a header a file includes, belong to the
# layer with the longest folder that holds them. The rules:
#   - a file of layer L includes "host/..." only of L or of one of L's declared layers (a layer
#     nested in another's folder is a layer of its own: neither includes the other undeclared),
#     and host/ holds no top-level folder the table does not declare;
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

# host/: each file against its layer's declared layers.
# The layers by folder, longest folder first, so the first match is the innermost layer.
set(layer_dirs)
foreach(layer IN LISTS SCHEDHOST_LAYERS)
  if(NOT DEFINED SCHEDHOST_LAYER_DIR_${layer})
    set(SCHEDHOST_LAYER_DIR_${layer} ${layer})
  endif()
  string(LENGTH "${SCHEDHOST_LAYER_DIR_${layer}}" length)
  math(EXPR key "1000 + ${length}")
  list(APPEND layer_dirs "${key}|${SCHEDHOST_LAYER_DIR_${layer}}|${layer}")
endforeach()
list(SORT layer_dirs ORDER DESCENDING)

# Sets `out` to the layer of host/... path `path`, or "" when no layer's folder holds it.
function(layer_of path out)
  foreach(entry IN LISTS layer_dirs)
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 1 dir)
    list(GET parts 2 layer)
    string(LENGTH "host/${dir}/" prefix_length)
    string(SUBSTRING "${path}" 0 ${prefix_length} prefix)
    if(prefix STREQUAL "host/${dir}/")
      set(${out} ${layer} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

set(top_dirs)
foreach(layer IN LISTS SCHEDHOST_LAYERS)
  string(REGEX REPLACE "/.*" "" top "${SCHEDHOST_LAYER_DIR_${layer}}")
  list(APPEND top_dirs ${top})
endforeach()
file(GLOB host_entries LIST_DIRECTORIES true RELATIVE ${ROOT}/host ${ROOT}/host/*)
foreach(entry IN LISTS host_entries)
  if(IS_DIRECTORY ${ROOT}/host/${entry} AND NOT entry IN_LIST top_dirs)
    message(NOTICE "host/${entry}/: not a declared layer (add a schedhost_host_layer() call)")
    math(EXPR violations "${violations} + 1")
  endif()
endforeach()

file(GLOB_RECURSE host_files RELATIVE ${ROOT} ${ROOT}/host/*.h ${ROOT}/host/*.hpp ${ROOT}/host/*.cc
     ${ROOT}/host/*.cpp ${ROOT}/host/*.c)
list(SORT host_files)
foreach(file IN LISTS host_files)
  layer_of(${file} layer)
  if(NOT layer)
    continue()  # a file directly in host/
  endif()
  set(allowed ${layer} ${SCHEDHOST_LAYER_${layer}})
  list(JOIN SCHEDHOST_LAYER_${layer} ", " declared)
  if(NOT declared)
    set(declared "none")
  endif()
  for_each_include(${file})
  foreach(path IN LISTS _paths)
    string(SUBSTRING "${path}" 1 -1 target)
    if(target MATCHES "^host/")
      layer_of(${target} other)
      if(other AND NOT other IN_LIST allowed)
        report(${file} "${target}" "layer ${layer} (host/${SCHEDHOST_LAYER_DIR_${layer}}) may not include layer ${other} (host/${SCHEDHOST_LAYER_DIR_${other}}) (declared: ${declared})")
        math(EXPR violations "${violations} + 1")
      endif()
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
