# weld_build_info(<target>): gives <target> the generated header
# weld_build_info.h with WELD_GIT_COMMIT (the source's commit, "-dirty" when
# tracked files differ from it) and WELD_BUILD_TYPE, for `weld --version`.
# The version itself is project(VERSION) in the top-level CMakeLists.txt,
# the one place it is written (docs/install.md, "Versions").
# The commit is read at every build, not at configure time, and the header
# only rewritten when it changes, so a new commit recompiles one file.
# Without git (a source tarball), WELD_GIT_COMMIT from the environment or the
# cache, else "unknown".
set(WELD_GIT_COMMIT "" CACHE STRING "The commit weld --version names when the source is no git checkout")
set(WELD_BUILD_INFO_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/WeldBuildInfoWrite.cmake)
function(weld_build_info target)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/build_info)
  add_custom_target(${target}_build_info
    COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DOUT=${dir}/weld_build_info.h
            -DCOMMIT_OVERRIDE=${WELD_GIT_COMMIT} -P ${WELD_BUILD_INFO_SCRIPT}
    BYPRODUCTS ${dir}/weld_build_info.h
    COMMENT "" VERBATIM)
  add_dependencies(${target} ${target}_build_info)
  target_include_directories(${target} PRIVATE ${dir})
  target_compile_definitions(${target} PRIVATE WELD_BUILD_TYPE="$<IF:$<BOOL:$<CONFIG>>,$<CONFIG>,none>")
endfunction()
