#ifndef CPROCESS_SPAWN_H
#define CPROCESS_SPAWN_H

#include <spawn.h>

/// What Swift's view of glibc leaves out (it is a GNU extension, declared under _GNU_SOURCE):
/// closes every descriptor from `lowest` up in the spawned process, before it runs. 0, or an
/// errno value.
int process_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

#endif
