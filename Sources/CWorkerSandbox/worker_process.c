// The jq worker's process set-up that Swift cannot do itself (prctl is variadic), and the two
// shared integers through which a worker says what it is working on.
#define _GNU_SOURCE
#include "cworker_sandbox.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

int sandbox_die_with_parent(pid_t parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return -1;
    // The parent may have died before the call: then nothing will send the signal.
    return getppid() == parent ? 0 : -1;
}

void sandbox_close_from(int lowest) {
    if (close_range((unsigned)lowest, ~0U, 0) == 0) return;
    for (int fd = lowest; fd < 65536; fd++) close(fd);
}

int sandbox_progress_create(void) {
    int fd = memfd_create("feedcli-jq-progress", MFD_CLOEXEC);
    if (fd < 0) return -1;
    if (ftruncate(fd, 2 * sizeof(int32_t)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

volatile int32_t *sandbox_progress_map(int fd) {
    void *address = mmap(NULL, 2 * sizeof(int32_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return address == MAP_FAILED ? NULL : (volatile int32_t *)address;
}

void sandbox_progress_unmap(volatile int32_t *progress) {
    if (progress) munmap((void *)progress, 2 * sizeof(int32_t));
}

void sandbox_progress_set(volatile int32_t *progress, int32_t stage, int32_t item) {
    if (!progress) return;
    progress[0] = stage;
    progress[1] = item;
}

int32_t sandbox_progress_get(volatile int32_t *progress, int index) {
    return progress ? progress[index] : -1;
}
