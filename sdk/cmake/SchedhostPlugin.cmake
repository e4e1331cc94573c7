# schedhost_add_plugin(<target> SOURCES <files...> [OUTPUT_DIR <dir>])
#
# Builds a schedhost plugin as a MODULE library: C++17 or later, hidden visibility,
# -fno-gnu-unique (so the library can really be unloaded), a version script that
# exports only schedhost_plugin_v1, and the third-party code linked into it kept
# private. Link only schedhost::sdk and your own static dependencies.
function(schedhost_add_plugin target)
  cmake_parse_arguments(ARG "" "OUTPUT_DIR" "SOURCES" ${ARGN})
  set(map ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/schedhost_plugin.map)
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE schedhost::sdk)
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    POSITION_INDEPENDENT_CODE ON)
  if(ARG_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIR})
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fno-gnu-unique>)
  endif()
  target_link_options(${target} PRIVATE
    "LINKER:--version-script=${map}" "LINKER:--exclude-libs,ALL"
    "LINKER:-z,defs" "LINKER:-z,now")
endfunction()
