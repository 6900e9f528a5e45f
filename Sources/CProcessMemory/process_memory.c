#include <malloc.h>

#include "cprocess_memory.h"

int process_memory_map_from(size_t bytes) {
    // Fixing the mapping threshold fixes the trim threshold too (glibc moved it with the first):
    // left at its 128 KiB, the heap's top would be given back and taken again all the time, a
    // system call and a TLB shootdown each. Twice the mapping threshold, as glibc sets it.
    return mallopt(M_MMAP_THRESHOLD, (int)bytes) && mallopt(M_TRIM_THRESHOLD, (int)(2 * bytes));
}
