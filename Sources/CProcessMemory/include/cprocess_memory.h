#ifndef CPROCESS_MEMORY_H
#define CPROCESS_MEMORY_H

#include <stddef.h>

/// glibc's allocator settings (malloc.h, which Swift's view of glibc leaves out): allocations
/// of `bytes` or more are mapped on their own and given back when freed, at a fixed threshold
/// (glibc's own rises with each such free). 1 when set.
int process_memory_map_from(size_t bytes);

#endif
