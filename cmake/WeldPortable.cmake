# WELD_PORTABLE=ON: the build of the portable tarball (docs/install.md, "The
# portable tarball"), made by scripts/package.sh. The weld executable and
# libweld.so need nothing but the C library (libc.so.6, libm.so.6, the
# dynamic loader) and libgcc_s.so.1, which every glibc system has (glibc
# itself loads it to unwind threads):
# - every other library is linked from its static archive: Debian's for
#   OpenSSL, Boost.Context and xxhash; libcurl, mimalloc, RE2 and PCRE2
#   built from Debian's source packages by scripts/package.sh and found
#   through CMAKE_PREFIX_PATH (Debian's libcurl.a needs GSSAPI, LDAP,
#   libssh2, nghttp2, libidn2, librtmp and libpsl; there is no
#   libmimalloc.a; its RE2 and PCRE2 archives are not position-independent,
#   which libweld.so needs);
# - libstdc++ is linked statically, so the binary does not need the
#   GLIBCXX version of the build machine's libstdc++.so.6: its
#   position-independent archive (Debian's libstdc++-12-pic), which a shared
#   library (libweld.so) can hold;
# - glibc_compat.c keeps the glibc floor at 2.34: see there.
# libgcc stays shared: the static libgcc_eh.a of Debian 12 calls
# _dl_find_object, new in glibc 2.35.
# Included before the modules (it steers their find_package calls).
set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
set(OPENSSL_USE_STATIC_LIBS TRUE)
set(Boost_USE_STATIC_LIBS ON)
# The archives' objects of the C++ runtime and of the libraries above go into
# libweld.so too; its version script (src/capi/weld.map) keeps them hidden.
add_link_options(-static-libstdc++)
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++_pic.a
                OUTPUT_VARIABLE WELD_STDCXX_PIC OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT IS_ABSOLUTE "${WELD_STDCXX_PIC}" OR NOT EXISTS "${WELD_STDCXX_PIC}")
  message(FATAL_ERROR "WELD_PORTABLE: no libstdc++_pic.a for ${CMAKE_CXX_COMPILER} "
                      "(apt-get install libstdc++-12-pic, or libstdc++-12-pic-arm64-cross)")
endif()
# -static-libstdc++ links the first libstdc++.a the linker finds: this one,
# the position-independent archive plus the compatibility objects it leaves
# out (they define old symbol versions of libstdc++.so; istream.o calls one,
# istream::ignore(long)), taken from the static archive: they hold no
# relocation a shared library cannot have.
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.a
                OUTPUT_VARIABLE WELD_STDCXX_STATIC OUTPUT_STRIP_TRAILING_WHITESPACE)
set(dir ${CMAKE_BINARY_DIR}/stdcxx-pic)
file(REMOVE_RECURSE ${dir})
file(MAKE_DIRECTORY ${dir}/objects)
file(COPY_FILE ${WELD_STDCXX_PIC} ${dir}/libstdc++.a)
execute_process(COMMAND ${CMAKE_AR} t ${WELD_STDCXX_STATIC} OUTPUT_VARIABLE members)
string(REGEX MATCHALL "compatibility[^\n]*\\.o" compatibility "${members}")
execute_process(COMMAND ${CMAKE_AR} x ${WELD_STDCXX_STATIC} ${compatibility} WORKING_DIRECTORY ${dir}/objects
                COMMAND_ERROR_IS_FATAL ANY)
list(TRANSFORM compatibility PREPEND ${dir}/objects/)
execute_process(COMMAND ${CMAKE_AR} qs ${dir}/libstdc++.a ${compatibility} COMMAND_ERROR_IS_FATAL ANY)
add_link_options(-L${dir})

# weld_portable(<target>...): the C library shims in the portable targets.
# A module loaded into another program (the Python module, in an interpreter
# that may load its own libstdc++, OpenSSL or libcurl) keeps the static
# libraries' symbols to itself (--exclude-libs), as libweld.so's version
# script does.
function(weld_portable)
  foreach(target ${ARGN})
    if(TARGET ${target})
      target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/packaging/portable/glibc_compat.c)
      get_target_property(type ${target} TYPE)
      if(type STREQUAL "MODULE_LIBRARY")
        target_link_options(${target} PRIVATE -Wl,--exclude-libs,ALL)
      endif()
    endif()
  endforeach()
endfunction()
