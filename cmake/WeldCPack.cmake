# The Debian package (docs/install.md, "The .deb"): `cpack -G DEB` in a build
# configured with -DCMAKE_INSTALL_PREFIX=/usr, as scripts/package.sh does.
# It holds what `cmake --install` installs (the weld command, its man page
# and shell completions, libweld.so, the headers and the CMake and
# pkg-config packages); dpkg-shlibdeps writes Depends: from the Debian
# libraries weld links (apt installs them with it).
set(CPACK_PACKAGE_NAME weld)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "weld maintainers <maintainers@weld.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "language-model answers that validate against a JSON Schema")
# The extended description (CPack puts the summary above it and indents it).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "weld gets a language model to answer with JSON that validates against a
JSON Schema, or fails loudly with an exit code and a message that say why.
It works with the OpenAI and Anthropic APIs and with self-hosted servers
(vLLM, llama.cpp, Ollama, SGLang): the headless run (weld -p), weld batch
over JSON Lines, weld proxy between agent clients and model servers, and
weld schema for checking and validating JSON Schemas. Also libweld, its
C++ library and C API.")
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
# libweld.so: dpkg runs ldconfig through its trigger, as Debian's policy asks
# (CPack's postinst calls it too).
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/deb-control/triggers "activate-noawait ldconfig\n")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_BINARY_DIR}/deb-control/triggers)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
if(CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_PROCESSOR STREQUAL "aarch64")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
endif()
# copyright and changelog.Debian.gz, which Debian's policy wants in
# /usr/share/doc/weld (scripts/package.sh writes them).
set(WELD_DEB_DOC_DIR "" CACHE PATH "Files for share/doc/weld in the .deb (copyright, changelog.Debian.gz)")
if(WELD_DEB_DOC_DIR)
  install(DIRECTORY ${WELD_DEB_DOC_DIR}/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
endif()
include(CPack)
