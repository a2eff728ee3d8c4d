/* fuzz_stubprobe -- libFuzzer target for h5sf_stub_lacks_root
 * (common/layout.c): the probe that decides, from a stub's bytes, whether
 * a file without a config file is a subfiled file's stub.  It reads an
 * open descriptor (fstat for the size, pread), so the input is written to a
 * memfd first.
 *
 * Input: the stub's bytes.  Checks: no crash, no read outside the file
 * (ASan would not see one: the kernel would just return short), an answer
 * of 0 or 1, and the same answer twice.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    if (fd < 0 && (fd = memfd_create("fuzz_stubprobe", MFD_CLOEXEC)) < 0) {
        perror("fuzz_stubprobe: memfd_create");
        abort();
    }
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
        perror("fuzz_stubprobe: writing the memfd");
        abort();
    }
    int a = h5sf_stub_lacks_root(fd), b = h5sf_stub_lacks_root(fd);
    if ((a != 0 && a != 1) || a != b) {
        fprintf(stderr, "fuzz_stubprobe: answers %d then %d\n", a, b);
        abort();
    }
    return 0;
}
