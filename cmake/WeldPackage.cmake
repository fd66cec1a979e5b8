# The installed package: weldTargets.cmake (the weld:: targets),
# weldConfig.cmake with its version file, and weld.pc for pkg-config.
# Included by the top-level CMakeLists.txt after every module.
include(CMakePackageConfigHelpers)

set(WELD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/weld)
install(EXPORT weldTargets NAMESPACE weld:: DESTINATION ${WELD_CMAKE_DIR})

get_property(dependencies GLOBAL PROPERTY WELD_PACKAGE_DEPENDENCIES)
list(REMOVE_DUPLICATES dependencies)
list(JOIN dependencies "\n" WELD_CONFIG_DEPENDENCIES)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/weldConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/weldConfig.cmake
                              INSTALL_DESTINATION ${WELD_CMAKE_DIR})
# 0.x: a minor version may break the API, so only the same minor matches.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/weldConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/weldConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/weldConfigVersion.cmake
        DESTINATION ${WELD_CMAKE_DIR})

# weld.pc: the C++ libraries, dependents first (static link order).
get_property(libraries GLOBAL PROPERTY WELD_PACKAGE_LIBRARIES)
list(REVERSE libraries)
set(WELD_PC_LIBS "")
foreach(library ${libraries})
  get_target_property(type ${library} TYPE)
  get_target_property(output ${library} OUTPUT_NAME)
  if(NOT output)
    set(output ${library})
  endif()
  if(type STREQUAL "STATIC_LIBRARY")
    string(APPEND WELD_PC_LIBS " -l${output}")
  endif()
endforeach()
string(STRIP "${WELD_PC_LIBS}" WELD_PC_LIBS)
get_property(pkg_config GLOBAL PROPERTY WELD_PACKAGE_PKG_CONFIG)
list(REMOVE_DUPLICATES pkg_config)
list(JOIN pkg_config " " WELD_PC_REQUIRES)
configure_file(${CMAKE_CURRENT_LIST_DIR}/weld.pc.in ${CMAKE_CURRENT_BINARY_DIR}/weld.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/weld.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
