# Cross-compiling weld for linux aarch64 on Debian 12 amd64 (scripts/package.sh):
# Debian's cross compiler (crossbuild-essential-arm64) and the :arm64
# libraries installed beside the native ones (multiarch,
# scripts/install-deps.sh --package).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# pkg-config reads the arm64 .pc files, not the build machine's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
# Programs from the build machine, libraries and headers of the target.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
if(EXISTS /usr/bin/qemu-aarch64-static)
  set(CMAKE_CROSSCOMPILING_EMULATOR /usr/bin/qemu-aarch64-static)
endif()
