/* The portable build's definitions of C library functions newer than its
 * glibc floor (2.34; docs/install.md, "The portable tarball"). Debian 12's
 * static libstdc++ (std::random_device) calls arc4random, which glibc only
 * has since 2.36: linked with this file, the executable and libweld.so
 * resolve it here and ask nothing newer than 2.34 of the system's glibc.
 * The same contract as glibc's: 32 bits from the kernel's random source
 * (getrandom(2), since glibc 2.25), retried on EINTR; a system with no
 * working source ends the process, as glibc's does. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

uint32_t arc4random(void) {
  uint32_t value;
  unsigned char* out = (unsigned char*)&value;
  size_t have = 0;
  while (have < sizeof value) {
    ssize_t got = getrandom(out + have, sizeof value - have, 0);
    if (got > 0) {
      have += (size_t)got;
    } else if (got < 0 && errno != EINTR) {
      static const char message[] = "weld: no random source (getrandom failed)\n";
      ssize_t ignored = write(2, message, sizeof message - 1);
      (void)ignored;
      abort();
    }
  }
  return value;
}
