#include <malloc.h>

#include "cprocess_memory.h"

int process_memory_map_from(size_t bytes) {
    return mallopt(M_MMAP_THRESHOLD, (int)bytes);
}
