# Builds examples/ as an outside project would, then runs its programs
# (cmake -P; tests/consumer/CMakeLists.txt passes the variables):
#   MODE=installed:    cmake --install WELD_BUILD into PREFIX, check the
#                      package files, compile the C example with pkg-config
#                      alone, then find_package(weld) with CMAKE_PREFIX_PATH.
#   MODE=subdirectory: add_subdirectory(WELD_SOURCE) with only the schema
#                      engine (and its C API) enabled; proves no provider,
#                      agent or proxy dependency (curl, Boost, OpenSSL) is
#                      looked for.
# Any failure is a FATAL_ERROR naming what differed.
cmake_minimum_required(VERSION 3.25)

set(checks 0)
function(run_checked what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "${what} failed (${code}):\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()
# expect_output(<what> <exit code> <exact stdout> COMMAND ...)
function(expect_output what expected_code expected_out)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL expected_code OR NOT out STREQUAL expected_out)
    message(FATAL_ERROR "${what}: exit ${code} (expected ${expected_code}), stdout:\n${out}\nexpected:\n${expected_out}\nstderr:\n${err}")
  endif()
  math(EXPR count "${checks} + 1")
  set(checks ${count} PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(build ${WORK_DIR}/build)
set(configure_args -S ${EXAMPLES_DIR} -B ${build} -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
if(LAUNCHER)
  list(APPEND configure_args -DCMAKE_C_COMPILER_LAUNCHER=${LAUNCHER} -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()

if(MODE STREQUAL "installed")
  set(prefix ${WORK_DIR}/prefix)
  run_checked("cmake --install" ${CMAKE_COMMAND} --install ${WELD_BUILD} --prefix ${prefix})
  foreach(file lib/cmake/weld/weldConfig.cmake lib/cmake/weld/weldConfigVersion.cmake lib/cmake/weld/weldTargets.cmake
               lib/pkgconfig/weld.pc lib/pkgconfig/weld-c.pc include/weld/weld.h include/weld/schema/schema.h
               include/weld/agent/run_loop.h lib/libweld.so.1 lib/libweld_schema.a bin/weld)
    if(NOT EXISTS ${prefix}/${file})
      message(FATAL_ERROR "the installed package has no ${file}")
    endif()
    math(EXPR checks "${checks} + 1")
  endforeach()
  # pkg-config alone: the C example with `cc $(pkg-config --cflags --libs weld-c)`.
  set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
  run_checked("pkg-config weld-c" pkg-config --cflags --libs weld-c)
  string(STRIP "${last_output}" pc_flags)
  separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
  run_checked("cc with pkg-config flags" ${C_COMPILER} -std=c11 -o ${WORK_DIR}/validate_pc ${EXAMPLES_DIR}/validate.c
              ${pc_flags} -Wl,-rpath,${prefix}/lib)
  expect_output("the C example built with pkg-config" 0 "1: valid\n" ${WORK_DIR}/validate_pc "{\"type\":\"integer\"}" "7")
  # pkg-config alone for the C++ libraries: `pkg-config --libs weld` (not
  # --static: the libraries are static, so what they need is in Libs and
  # Requires) links validate_answers.cc and docs/library.md's "The schema
  # engine alone" block as written, which must print what the page shows.
  run_checked("pkg-config weld" pkg-config --cflags --libs weld)
  string(STRIP "${last_output}" pc_flags)
  separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
  run_checked("c++ validate_answers.cc with pkg-config --libs weld" ${CXX_COMPILER} -o ${WORK_DIR}/validate_answers_pc
              ${EXAMPLES_DIR}/validate_answers.cc ${pc_flags})
  expect_output("validate_answers built with pkg-config" 0 "{\"ok\":true}  [coerce_boolean]\n"
                ${WORK_DIR}/validate_answers_pc "{\"properties\":{\"ok\":{\"type\":\"boolean\"}}}" "{\"ok\":\"true\"}")
  file(READ ${WELD_SOURCE}/docs/library.md page)
  string(FIND "${page}" "## 4. The schema engine alone" section)
  if(section EQUAL -1)
    message(FATAL_ERROR "docs/library.md has no section \"4. The schema engine alone\"")
  endif()
  string(SUBSTRING "${page}" ${section} -1 page)
  if(NOT page MATCHES "```cpp\n(.*\n)```\n\n```sh\n[^\n]*\n\\$ \\./schema_alone\n([^`]*)```")
    message(FATAL_ERROR "docs/library.md, \"4. The schema engine alone\": no cpp block followed by the sh block that runs it")
  endif()
  set(snippet_output "${CMAKE_MATCH_2}")
  file(WRITE ${WORK_DIR}/schema_alone.cc "${CMAKE_MATCH_1}")
  run_checked("c++ docs/library.md's schema engine snippet with pkg-config --libs weld" ${CXX_COMPILER}
              -o ${WORK_DIR}/schema_alone ${WORK_DIR}/schema_alone.cc ${pc_flags})
  expect_output("docs/library.md's schema engine snippet" 1 "${snippet_output}" ${WORK_DIR}/schema_alone)
  list(APPEND configure_args -DCMAKE_PREFIX_PATH=${prefix})

  # find_package(weld COMPONENTS bogus): the error names the component and
  # lists the ones the installation has.
  file(MAKE_DIRECTORY ${WORK_DIR}/components)
  file(WRITE ${WORK_DIR}/components/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)\nproject(c LANGUAGES CXX)\n"
       "find_package(weld CONFIG REQUIRED COMPONENTS schema bogus)\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK_DIR}/components -B ${WORK_DIR}/components/build
                          -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
                  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "[ \n]+" " " err_words "${err}")
  if(code EQUAL 0 OR NOT err_words MATCHES "has no component bogus\\. Its components: agent, base, batch, c, json,"
     OR err_words MATCHES "component schema")
    message(FATAL_ERROR "find_package(weld COMPONENTS schema bogus): exit ${code}, stderr:\n${err}")
  endif()
  math(EXPR checks "${checks} + 1")
elseif(MODE STREQUAL "subdirectory")
  list(APPEND configure_args -DWELD_SOURCE=${WELD_SOURCE} -DWELD_BUILD_PROVIDER=OFF -DWELD_BUILD_AGENT=OFF
       -DWELD_BUILD_PROXY=OFF -DWELD_BUILD_CLI=OFF)
else()
  message(FATAL_ERROR "MODE must be installed or subdirectory")
endif()

run_checked("configuring examples/ (${MODE})" ${CMAKE_COMMAND} ${configure_args})
run_checked("building examples/ (${MODE})" ${CMAKE_COMMAND} --build ${build} -j2)

set(schema "{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}},\"required\":[\"ok\"]}")
expect_output("validate_answers repairs" 0 "{\"ok\":true}  [coerce_boolean]\n" ${build}/validate_answers "${schema}" "{\"ok\":\"true\"}")
expect_output("validate_answers reports" 1 "params must have required property 'ok'\n" ${build}/validate_answers "${schema}" "{}")
# A library error names no flag of the weld command: the program's user never typed --json-schema.
execute_process(COMMAND ${build}/validate_answers "{\"type\": }" "{}" RESULT_VARIABLE code OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT code EQUAL 52 OR NOT err STREQUAL "schema is not valid JSON: unexpected character '}' at line 1 column 10\n")
  message(FATAL_ERROR "validate_answers with a schema that is not JSON: exit ${code}, stderr:\n${err}")
endif()
math(EXPR checks "${checks} + 1")
expect_output("validate_c" 1 "1: valid\n2: / must have required property 'ok' (required)\n"
              ${build}/validate_c "${schema}" "{\"ok\":false}" "{}")

if(MODE STREQUAL "subdirectory")
  # Only the schema engine: no module that needs libcurl, Boost or OpenSSL
  # was configured, and the agent example was skipped.
  file(READ ${build}/CMakeCache.txt cache)
  foreach(dependency CURL_INCLUDE_DIR Boost_INCLUDE_DIR OPENSSL_INCLUDE_DIR CLI11_DIR)
    if(cache MATCHES "${dependency}")
      message(FATAL_ERROR "a schema-only consumer looked for ${dependency}")
    endif()
    math(EXPR checks "${checks} + 1")
  endforeach()
  if(EXISTS ${build}/structured_run)
    message(FATAL_ERROR "structured_run was built without weld::agent")
  endif()
elseif(NOT EXISTS ${build}/structured_run)
  message(FATAL_ERROR "the installed package did not give weld::agent (structured_run not built)")
endif()
message("consumer ${MODE}: ${checks} passed, 0 failed")
