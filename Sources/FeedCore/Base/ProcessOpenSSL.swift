import Glibc

/// The OpenSSL the process has loaded (libcurl's TLS library, and libpq's), called by its C
/// names, found in the process's global scope (`dlopen(NULL)`), not linked: a libcurl built on
/// another TLS library has no OpenSSL loaded, and then nothing is done.
///
/// - `skipExitCleanup()`: by default OpenSSL's first initialization registers an `atexit`
///   handler that frees every algorithm, provider and random generator it set up, one
///   allocation at a time. The process's memory goes back to the system at exit anyway, and
///   that handler was a measurable part of a short command's end: after a PostgreSQL `next`
///   (SHA-256, HMAC and a seeded generator fetched for the password exchange) it was most of the
///   samples between the last statement and the exit (docs/PERFORMANCE.md).
///   `OPENSSL_INIT_NO_ATEXIT` is OpenSSL's own switch for it (1.1.1 and later), honoured by the
///   process's first initialization only: it is called before anything else can use OpenSSL
///   (before `curl_global_init`, before libpq connects, before the generator is seeded).
/// - `primeRandomGenerator()`: libpq draws its password exchange's nonce (SCRAM-SHA-256) from
///   OpenSSL's generator, whose first use in a process seeds it, 1.2–1.5 ms (Debian 12, OpenSSL
///   3) on the connecting thread between two of the server's answers. Drawn first on another
///   thread, the connection does not wait for it.
///
/// Thread contract: both may be called from any thread, any number of times; the lookups and the
/// initialization happen once.
package enum ProcessOpenSSL {
    /// `OPENSSL_INIT_NO_ATEXIT` (openssl/crypto.h).
    private static let noAtExit: UInt64 = 0x0008_0000

    /// The process's function named `name`, nil when no library loaded defines it.
    private static func function(_ name: String) -> UnsafeMutableRawPointer? {
        guard let process = dlopen(nil, RTLD_LAZY) else { return nil }
        return dlsym(process, name)
    }

    /// Whether OpenSSL was found and initialized.
    private static let initialized: Bool = {
        guard let symbol = function("OPENSSL_init_crypto") else { return false }
        typealias Initialize = @convention(c) (UInt64, UnsafeRawPointer?) -> Int32
        return unsafeBitCast(symbol, to: Initialize.self)(noAtExit, nil) == 1
    }()

    /// Initializes OpenSSL without its exit-time cleanup (which holds when this is the process's
    /// first initialization of OpenSSL); true when OpenSSL is in the process.
    @discardableResult
    package static func skipExitCleanup() -> Bool { initialized }

    /// Draws a few bytes from OpenSSL's random generator, seeding it; false when the process has
    /// no OpenSSL (nothing to seed then).
    @discardableResult
    package static func primeRandomGenerator() -> Bool {
        guard skipExitCleanup(), let symbol = function("RAND_bytes") else { return false }
        typealias RandomBytes = @convention(c) (UnsafeMutablePointer<UInt8>?, Int32) -> Int32
        var bytes = [UInt8](repeating: 0, count: 32)
        return bytes.withUnsafeMutableBufferPointer { buffer in
            unsafeBitCast(symbol, to: RandomBytes.self)(buffer.baseAddress, Int32(buffer.count)) == 1
        }
    }
}
