#ifndef CWORKER_SANDBOX_H
#define CWORKER_SANDBOX_H

#include <stdint.h>
#include <sys/types.h>

/// The jq worker's confinement and its progress, apart from jq itself (CJQ): what a worker
/// process sets up about itself before it serves, and how it tells feedcli what it was doing
/// when it died.

/// The jq worker's process set-up, calls Swift cannot make (prctl is variadic):
/// SIGKILL when the parent dies; -1 when that cannot be arranged or `parent` is gone already.
int sandbox_die_with_parent(pid_t parent);
/// Closes every descriptor from `lowest` up.
void sandbox_close_from(int lowest);
/// The worker's last confinement (confine.c): no new privileges, no capabilities, and a seccomp
/// filter letting through only memory, I/O on open descriptors, the clock and exit (anything
/// else fails with EPERM). 0 when all of it is in place.
int sandbox_confine(void);

/// Two shared integers through which a worker says what it is working on (a stage and an item),
/// for feedcli to read after the worker died: a memfd (close-on-exec) of their size, -1 on failure.
int sandbox_progress_create(void);
/// The integers of a progress memfd, mapped shared; NULL on failure.
volatile int32_t *sandbox_progress_map(int fd);
void sandbox_progress_unmap(volatile int32_t *progress);
/// Sets both (ignored for NULL).
void sandbox_progress_set(volatile int32_t *progress, int32_t stage, int32_t item);
/// One of them (0: the stage, 1: the item); -1 for NULL.
int32_t sandbox_progress_get(volatile int32_t *progress, int index);

#endif
