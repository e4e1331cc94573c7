# schedhost_add_plugin(<target> SOURCES <files...> [OUTPUT_DIR <dir>])
#
# Builds a schedhost plugin as a MODULE library: C++17 or later (or C99), hidden visibility,
# -fno-gnu-unique (so the library can really be unloaded), a version script that exports only
# schedhost_plugin_v1, every symbol resolved at link time (-z defs) and at load time (-z now),
# no executable stack, and the third-party code linked into it kept private. Link only
# schedhost::sdk and your own static dependencies.
#
# The version script: the installed package's config file names it in
# SCHEDHOST_PLUGIN_VERSION_SCRIPT before including this file; in the source tree it sits
# beside this file. A global property carries it, so the function works from any directory.
if(NOT SCHEDHOST_PLUGIN_VERSION_SCRIPT)
  set(SCHEDHOST_PLUGIN_VERSION_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/schedhost_plugin.map)
endif()
set_property(GLOBAL PROPERTY SCHEDHOST_PLUGIN_VERSION_SCRIPT ${SCHEDHOST_PLUGIN_VERSION_SCRIPT})

function(schedhost_add_plugin target)
  cmake_parse_arguments(ARG "" "OUTPUT_DIR" "SOURCES" ${ARGN})
  get_property(map GLOBAL PROPERTY SCHEDHOST_PLUGIN_VERSION_SCRIPT)
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE schedhost::sdk)
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    POSITION_INDEPENDENT_CODE ON
    LINK_DEPENDS ${map})
  if(ARG_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIR})
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fno-gnu-unique>)
  endif()
  target_link_options(${target} PRIVATE
    "LINKER:--version-script=${map}" "LINKER:--exclude-libs,ALL"
    "LINKER:-z,defs" "LINKER:-z,now" "LINKER:-z,noexecstack")
endfunction()
