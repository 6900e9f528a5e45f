#define _GNU_SOURCE
#include <spawn.h>

#include "cprocess_spawn.h"

int process_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    // glibc 2.34 and later (Debian 12 has 2.36).
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
