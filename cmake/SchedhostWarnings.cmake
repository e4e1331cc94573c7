# Warning flags, applied per target rather than to the whole directory tree, so a project that
# adds schedhost with add_subdirectory() keeps its own flags. schedhost_target_warnings() sets
# them on the given targets; schedhost_directory_warnings() on every target built in a
# directory and below (the top-level CMakeLists.txt calls it once on the project).
set(SCHEDHOST_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wshadow -Wno-missing-field-initializers)
# GCC 12 reports -Wrestrict false positives inside std::string at -O2/-O3 (GCC bug 105329).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  list(APPEND SCHEDHOST_WARNING_FLAGS $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
  # In a unity build (the ci and tsan presets) each source is included by the unity file, so
  # GCC takes a class defined in a source with a member of an anonymous-namespace type for one
  # defined in a header (-Wsubobject-linkage); in a source of its own it is not reported.
  if(CMAKE_UNITY_BUILD)
    list(APPEND SCHEDHOST_WARNING_FLAGS $<$<COMPILE_LANGUAGE:CXX>:-Wno-subobject-linkage>)
  endif()
endif()
if(SCHEDHOST_WERROR)
  list(APPEND SCHEDHOST_WARNING_FLAGS -Werror)
endif()

function(schedhost_target_warnings)
  foreach(target IN LISTS ARGN)
    get_target_property(type ${target} TYPE)
    if(NOT type STREQUAL "INTERFACE_LIBRARY" AND NOT type STREQUAL "UTILITY")
      target_compile_options(${target} PRIVATE ${SCHEDHOST_WARNING_FLAGS})
    endif()
  endforeach()
endfunction()

function(schedhost_directory_warnings dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  schedhost_target_warnings(${targets})
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    schedhost_directory_warnings(${subdir})
  endforeach()
endfunction()

# Sanitizers stay global: everything linked together must be built with them.
if(SCHEDHOST_SANITIZE)
  add_compile_options(-fsanitize=${SCHEDHOST_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${SCHEDHOST_SANITIZE})
endif()
