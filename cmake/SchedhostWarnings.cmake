# Warning and sanitizer flags applied to every target of the project.
add_compile_options(-Wall -Wextra -Wpedantic -Wshadow -Wno-missing-field-initializers)
# GCC 12 reports -Wrestrict false positives inside std::string at -O2/-O3 (GCC bug 105329).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
endif()
if(SCHEDHOST_WERROR)
  add_compile_options(-Werror)
endif()
if(SCHEDHOST_SANITIZE)
  add_compile_options(-fsanitize=${SCHEDHOST_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${SCHEDHOST_SANITIZE})
endif()
