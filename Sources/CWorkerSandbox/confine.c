// The jq worker's last layer of confinement, entered after it has loaded libjq and before it
// reads a request: no new privileges, no capabilities, and a seccomp filter that lets through
// only what evaluating an expression needs (memory, I/O on the socket it was given, the clock,
// leaving). Everything else fails with EPERM rather than killing the worker, so a jq builtin
// that would touch the system (`now` reads a clock; a time zone file is not opened) sees an
// error; a memory bug in libjq cannot open a file, a socket or a process.
#define _GNU_SOURCE
#include "cworker_sandbox.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define CJQ_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CJQ_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

static int drop_capabilities(void) {
    // The bounding set first (it needs CAP_SETPCAP, which dropping the sets would lose), then
    // the ambient set, then the process's own sets. Without CAP_SETPCAP (not root) the
    // bounding set cannot change, and there is nothing in it to use anyway.
    for (int cap = 0; cap <= 63; cap++) {
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL && errno != EPERM) return -1;
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) return -1;
    struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
    struct __user_cap_data_struct data[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
    return (int)syscall(SYS_capset, &header, data);
}

#define ALLOW(name) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_##name, 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static int install_filter(void) {
#ifdef CJQ_AUDIT_ARCH
    struct sock_filter filter[] = {
        // Another architecture's calling convention (a 32-bit call on x86-64) is refused whole.
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CJQ_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
        // x32 calls carry this bit; they are another convention too.
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
#endif
        ALLOW(read), ALLOW(write), ALLOW(readv), ALLOW(writev), ALLOW(recvfrom), ALLOW(sendto), ALLOW(close),
        ALLOW(fstat), ALLOW(newfstatat), ALLOW(lseek),
        ALLOW(brk), ALLOW(mmap), ALLOW(munmap), ALLOW(mremap), ALLOW(mprotect), ALLOW(madvise),
        ALLOW(futex), ALLOW(sched_yield), ALLOW(getrandom), ALLOW(poll), ALLOW(ppoll),
        ALLOW(clock_gettime), ALLOW(gettimeofday), ALLOW(nanosleep), ALLOW(clock_nanosleep),
        ALLOW(rt_sigreturn), ALLOW(rt_sigprocmask), ALLOW(rt_sigaction), ALLOW(restart_syscall),
        ALLOW(getpid), ALLOW(gettid), ALLOW(tgkill),
        ALLOW(exit), ALLOW(exit_group),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
    };
    struct sock_fprog program = { .len = (unsigned short)(sizeof filter / sizeof filter[0]), .filter = filter };
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0);
#else
    return 0;  // an architecture this filter does not describe: the other layers still hold
#endif
}

int sandbox_confine(void) {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    if (drop_capabilities() != 0) return -1;
    return install_filter();
}
