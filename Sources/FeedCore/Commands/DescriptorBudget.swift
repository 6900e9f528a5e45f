import FeedModel
import FoundationEssentials
import Glibc

#if canImport(Glibc)
    import Glibc
#endif

/// How many feeds a run may work on at once within its file-descriptor limit (`ulimit -n`).
///
/// Each feed in flight holds its lock file and a connection (with curl's cache, up to two), so a
/// low limit and the default `--jobs 8` ran out: lock files failed with EMFILE and the run then
/// hung. A run first raises its soft limit to the hard one (as far as the system lets it), then
/// takes at most the jobs the descriptors left over can carry, and refuses clearly (78) when not
/// even one can run.
package enum DescriptorBudget {
    /// Descriptors one feed in flight may hold: its lock file, a connection, a cached connection.
    package static let perFeed = 3
    /// Kept free beyond those open at the start (the store, the standard streams, the runtime):
    /// curl's own (its wake-up pair, a socket pair per name resolution), libdispatch's timers
    /// (a timerfd each: a retry whose timer cannot get one never fires) and a margin.
    package static let reserve = 8

    /// `wanted` jobs, or fewer when the limit cannot carry them.
    package static func jobs(_ wanted: Int) throws(FeedFailure) -> Int {
        let limit = raiseSoftLimit()
        let available = limit - openDescriptors() - reserve
        guard available >= perFeed else {
            throw .configuration(
                "only \(limit) file descriptors are allowed (ulimit -n), \(openDescriptors()) in use; "
                    + "feedcli needs at least \(openDescriptors() + reserve + perFeed)")
        }
        return max(1, min(wanted, available / perFeed))
    }

    /// Raises the soft limit of open files to the hard limit; returns the soft limit now.
    package static func raiseSoftLimit() -> Int {
        var limits = rlimit()
        guard getrlimit(openFiles, &limits) == 0 else { return 1024 }
        if limits.rlim_cur < limits.rlim_max {
            var raised = limits
            raised.rlim_cur = limits.rlim_max
            if setrlimit(openFiles, &raised) == 0 { limits = raised }
        }
        return Int(clamping: limits.rlim_cur)
    }

    /// Descriptors open now (the entries of /proc/self/fd, less the one reading it).
    package static func openDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 16 }
        defer { closedir(directory) }
        guard let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return 16 }
        var count = 0
        while let entry = readdir(directory) {
            // The name read in place, no further than "..": a record of a short name ends before
            // `sizeof(dirent)`, and copying the whole struct (`entry.pointee`) read past the end
            // of readdir's buffer when the record was its last (a crash with many descriptors).
            let name = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: UInt8.self)
            let dot = UInt8(ascii: ".")
            let isDots = name[0] == dot && (name[1] == 0 || (name[1] == dot && name[2] == 0))
            if !isDots { count += 1 }
        }
        return max(0, count - 1)
    }

    private static var openFiles: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
