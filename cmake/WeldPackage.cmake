# The installed package: weldTargets.cmake (the weld:: targets),
# weldConfig.cmake with its version file, and weld.pc for pkg-config.
# Included by the top-level CMakeLists.txt after every module.
include(CMakePackageConfigHelpers)

set(WELD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/weld)
install(EXPORT weldTargets NAMESPACE weld:: DESTINATION ${WELD_CMAKE_DIR})

get_property(dependencies GLOBAL PROPERTY WELD_PACKAGE_DEPENDENCIES)
list(REMOVE_DUPLICATES dependencies)
list(JOIN dependencies "\n" WELD_CONFIG_DEPENDENCIES)
get_property(WELD_CONFIG_COMPONENTS GLOBAL PROPERTY WELD_PACKAGE_COMPONENTS)
list(SORT WELD_CONFIG_COMPONENTS)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/weldConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/weldConfig.cmake
                              INSTALL_DESTINATION ${WELD_CMAKE_DIR})
# 0.x: a minor version may break the API, so only the same minor matches.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/weldConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/weldConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/weldConfigVersion.cmake
        DESTINATION ${WELD_CMAKE_DIR})

# weld.pc: the C++ libraries, dependents first (static link order). They are
# static, so what they link is needed by every program that links them:
# `Requires` and `Libs`, not the `.private` fields `pkg-config --libs` skips.
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
get_property(other_libraries GLOBAL PROPERTY WELD_PACKAGE_PC_LIBS)
list(REMOVE_DUPLICATES other_libraries)
foreach(flag ${other_libraries})
  string(APPEND WELD_PC_LIBS " ${flag}")
endforeach()
string(STRIP "${WELD_PC_LIBS}" WELD_PC_LIBS)
get_property(pkg_config GLOBAL PROPERTY WELD_PACKAGE_PKG_CONFIG)
list(REMOVE_DUPLICATES pkg_config)
list(JOIN pkg_config " " WELD_PC_REQUIRES)
configure_file(${CMAKE_CURRENT_LIST_DIR}/weld.pc.in ${CMAKE_CURRENT_BINARY_DIR}/weld.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/weld.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The man page and the shell completions of the weld command, written from
# its own --help at build time (packaging/cli_docs.py; Python 3), and the
# licence (docs/install.md, "What each artifact holds"). A cross build runs
# weld under CMAKE_CROSSCOMPILING_EMULATOR.
# (The .deb says it in its copyright file instead: cmake/WeldCPack.cmake.)
if(NOT WELD_DEB_DOC_DIR)
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
endif()
# The documentation: the README and docs/ beside it in share/doc/weld (the
# .deb's /usr/share/doc/weld), so the pages weld's messages, --help and man
# page cite ("docs/run.md, ...") are on the machine that runs weld, in the
# version it runs, and the README's links work there.
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md")
set(WELD_ZSH_COMPLETION_DIR "${CMAKE_INSTALL_DATADIR}/zsh/site-functions" CACHE STRING
    "Where the zsh completion is installed (Debian: share/zsh/vendor-completions)")
if(TARGET weld)
  # find_program, not find_package(Python3): that one is the Python module's
  # (python/CMakeLists.txt picks its interpreter).
  find_program(WELD_PYTHON3 python3)
  if(WELD_PYTHON3 AND (NOT CMAKE_CROSSCOMPILING OR CMAKE_CROSSCOMPILING_EMULATOR))
    set(docs ${CMAKE_CURRENT_BINARY_DIR}/cli_docs)
    set(emulator "")
    if(CMAKE_CROSSCOMPILING)
      set(emulator --emulator ${CMAKE_CROSSCOMPILING_EMULATOR})
    endif()
    add_custom_command(
      OUTPUT ${docs}/weld.1.gz ${docs}/weld.bash ${docs}/_weld ${docs}/weld.fish
      COMMAND ${WELD_PYTHON3} ${PROJECT_SOURCE_DIR}/packaging/cli_docs.py ${emulator} $<TARGET_FILE:weld> ${docs}
      DEPENDS weld ${PROJECT_SOURCE_DIR}/packaging/cli_docs.py ${PROJECT_SOURCE_DIR}/packaging/weld.1.in
              ${PROJECT_SOURCE_DIR}/src/cli/main.cc
      COMMENT "weld.1 and the shell completions from weld --help" VERBATIM)
    # A test build checks them in tests/packaging/cli_docs.test.mjs instead of
    # writing them each time weld is linked (and installs them if built).
    set(all ALL)
    set(optional "")
    if(WELD_BUILD_TESTS)
      set(all "")
      set(optional OPTIONAL)
    endif()
    add_custom_target(weld_cli_docs ${all} DEPENDS ${docs}/weld.1.gz)
    install(FILES ${docs}/weld.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 ${optional})
    install(FILES ${docs}/weld.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME weld
            ${optional})
    install(FILES ${docs}/_weld DESTINATION ${WELD_ZSH_COMPLETION_DIR} ${optional})
    install(FILES ${docs}/weld.fish DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d ${optional})
  else()
    message(STATUS "weld: no Python 3 (or no way to run a cross-compiled weld): no man page or shell completions")
  endif()
endif()
