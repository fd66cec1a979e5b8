# Helpers the modules use to join the weld CMake package (docs/library.md).
include(GNUInstallDirs)
# The .pc files find the prefix from where they are installed (relocatable:
# `cmake --install --prefix` anywhere).
file(RELATIVE_PATH WELD_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" WELD_PC_TO_PREFIX "${WELD_PC_TO_PREFIX}")

# weld_library(<target> <name> [INCLUDE <dir>...]): makes <target> a public
# part of the package: the alias weld::<name> (the same name as after
# find_package(weld)), its include directories (default: the folder's
# include/) in the build and under the install prefix, the sanitizer flags
# of a WELD_SANITIZE build in its interface (a program linking an
# instrumented library needs them), and the install rules of the library and
# its headers.
function(weld_library target name)
  cmake_parse_arguments(ARG "" "" "INCLUDE" ${ARGN})
  if(NOT ARG_INCLUDE)
    set(ARG_INCLUDE ${CMAKE_CURRENT_SOURCE_DIR}/include)
  endif()
  get_target_property(type ${target} TYPE)
  set(scope PUBLIC)
  if(type STREQUAL "INTERFACE_LIBRARY")
    set(scope INTERFACE)
  endif()
  foreach(dir ${ARG_INCLUDE})
    target_include_directories(${target} ${scope} $<BUILD_INTERFACE:${dir}>)
  endforeach()
  target_include_directories(${target} ${scope} $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  if(WELD_SANITIZE_FLAG)  # an instrumented library: its users compile and link with the same sanitizers
    target_compile_options(${target} INTERFACE ${WELD_SANITIZE_FLAG})
    target_link_options(${target} INTERFACE ${WELD_SANITIZE_FLAG})
  endif()
  add_library(weld::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  set_property(GLOBAL APPEND PROPERTY WELD_PACKAGE_COMPONENTS ${name})  # find_package(weld COMPONENTS <name>)
  # Link order for the pkg-config file: modules register in dependency order.
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    set_property(GLOBAL APPEND PROPERTY WELD_PACKAGE_LIBRARIES ${target})
  endif()
  if(WELD_INSTALL)
    install(TARGETS ${target} EXPORT weldTargets
            ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
            LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
            RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    foreach(dir ${ARG_INCLUDE})
      install(DIRECTORY ${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
    endforeach()
  endif()
endfunction()

# weld_package_dependency(<cmake code> [PKG_CONFIG <module>...] [LIBS <flag>...]):
# what weldConfig.cmake runs before importing the targets, for a dependency a
# module links (static libraries carry their private dependencies), and what
# weld.pc adds for it: the pkg-config modules it requires, or the linker flags
# of a library without a .pc file (-lboost_context). Code without semicolons.
function(weld_package_dependency code)
  cmake_parse_arguments(ARG "" "" "PKG_CONFIG;LIBS" ${ARGN})
  set_property(GLOBAL APPEND PROPERTY WELD_PACKAGE_DEPENDENCIES "${code}")
  if(ARG_PKG_CONFIG)
    set_property(GLOBAL APPEND PROPERTY WELD_PACKAGE_PKG_CONFIG ${ARG_PKG_CONFIG})
  endif()
  if(ARG_LIBS)
    set_property(GLOBAL APPEND PROPERTY WELD_PACKAGE_PC_LIBS ${ARG_LIBS})
  endif()
endfunction()

# weld_module(<folder> [<option>]): adds src/<folder>, only when <option> is
# ON if one is given. The top-level CMakeLists.txt lists the modules.
macro(weld_module folder)
  set(_weld_module_enabled ON)
  if(NOT "${ARGN}" STREQUAL "")
    set(_weld_module_enabled ${${ARGN}})
  endif()
  if(_weld_module_enabled)
    add_subdirectory(${PROJECT_SOURCE_DIR}/src/${folder})
  endif()
endmacro()
