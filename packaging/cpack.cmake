# DEB and RPM packages, split as Debian splits daemons, plugins and headers:
#   schedhost          the host binary, the default plugins, the default profile, the unit
#   schedhost-dev      the plugin SDK (headers, CMake package)
# Build with: cmake --preset release && cmake --build --preset release && cpack --preset release
set(CPACK_PACKAGE_NAME schedhost)
set(CPACK_PACKAGE_VENDOR "schedhost")
set(CPACK_PACKAGE_CONTACT "schedhost maintainers <schedhost@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Kubernetes-compatible pod scheduler with binary plugins")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
set(CPACK_COMPONENTS_ALL host plugins sdk)
set(CPACK_COMPONENTS_GROUPING IGNORE)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_HOST_PACKAGE_NAME schedhost)
set(CPACK_DEBIAN_PLUGINS_PACKAGE_NAME schedhost-plugins)
set(CPACK_DEBIAN_SDK_PACKAGE_NAME schedhost-dev)
set(CPACK_DEBIAN_SDK_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_HOST_PACKAGE_DEPENDS "schedhost-plugins (= ${PROJECT_VERSION})")

set(CPACK_RPM_COMPONENT_INSTALL ON)
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_LICENSE "Apache-2.0")
set(CPACK_RPM_PACKAGE_GROUP "System Environment/Daemons")
set(CPACK_RPM_HOST_PACKAGE_NAME schedhost)
set(CPACK_RPM_PLUGINS_PACKAGE_NAME schedhost-plugins)
set(CPACK_RPM_SDK_PACKAGE_NAME schedhost-devel)
set(CPACK_RPM_HOST_PACKAGE_REQUIRES "schedhost-plugins = ${PROJECT_VERSION}")

install(FILES ${CMAKE_CURRENT_LIST_DIR}/systemd/schedhost.service
        DESTINATION lib/systemd/system COMPONENT host)
install(FILES ${PROJECT_SOURCE_DIR}/profiles/default.toml
        DESTINATION ${CMAKE_INSTALL_SYSCONFDIR}/schedhost/profiles.d COMPONENT host)

include(CPack)
