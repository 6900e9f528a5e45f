import Glibc

/// OpenSSL (libcurl's TLS library, and libpq's) told not to free its tables when the process
/// exits.
///
/// Why: by default OpenSSL's first initialization registers an `atexit` handler that frees every
/// algorithm, provider and random generator it set up, one allocation at a time. The process's
/// memory goes back to the system at exit anyway, and that handler was a measurable part of a
/// short command's end: after a PostgreSQL `next` (SHA-256, HMAC and a seeded generator fetched
/// for the password exchange) it was most of the samples between the last statement and the
/// exit (docs/PERFORMANCE.md). `OPENSSL_INIT_NO_ATEXIT` is OpenSSL's own switch for it (1.1.1
/// and later), honoured by the process's first initialization only: `skip()` is called before
/// anything else can use OpenSSL (before `curl_global_init`, before a database connection is
/// begun).
///
/// The function is found in the process's global scope (`dlopen(NULL)`), not linked: a libcurl
/// built on another TLS library has no OpenSSL loaded, and then nothing is done.
///
/// Thread contract: `skip()` may be called from any thread, any number of times; the lookup and
/// the call happen once.
package enum OpenSSLExitCleanup {
    /// `OPENSSL_INIT_NO_ATEXIT` (openssl/crypto.h).
    private static let noAtExit: UInt64 = 0x0008_0000

    /// Whether OpenSSL was found and initialized.
    private static let skipped: Bool = {
        guard let process = dlopen(nil, RTLD_LAZY), let symbol = dlsym(process, "OPENSSL_init_crypto") else {
            return false
        }
        typealias Initialize = @convention(c) (UInt64, UnsafeRawPointer?) -> Int32
        return unsafeBitCast(symbol, to: Initialize.self)(noAtExit, nil) == 1
    }()

    /// Initializes OpenSSL without its exit-time cleanup (which holds when this is the process's
    /// first initialization of OpenSSL); true when OpenSSL is in the process.
    @discardableResult
    package static func skip() -> Bool { skipped }
}
