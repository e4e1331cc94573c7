# cmake -DMANIFEST=<Cargo.toml> -DEXPECTED=<version> -P CheckCrateVersion.cmake
# Fails unless the [package] version of MANIFEST is EXPECTED (the project's version).
file(STRINGS ${MANIFEST} _lines REGEX "^version *= *\"")
list(GET _lines 0 _line)
string(REGEX REPLACE "^version *= *\"([^\"]*)\".*" "\\1" _version "${_line}")
if(NOT _version STREQUAL EXPECTED)
  message(FATAL_ERROR "${MANIFEST}: version \"${_version}\", but the project is ${EXPECTED}: "
                      "keep the crate's version equal to project(VERSION)")
endif()
message(STATUS "${MANIFEST}: version ${_version}")
