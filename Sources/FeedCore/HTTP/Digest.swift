import Glibc

/// SHA-1 (the WebSocket handshake's `Sec-WebSocket-Accept`) and SHA-256 (Nostr's event ids)
/// through libcrypto, which libcurl's OpenSSL has already loaded into the process. The
/// functions are looked up by name once, so that feedcli links no second copy of OpenSSL and
/// writes no hash by hand; a process without libcrypto gets nil, and says so where it matters.
package enum Digest {
    /// SHA-1 of `bytes` (20 bytes); nil without libcrypto.
    package static func sha1(_ bytes: some Collection<UInt8>) -> [UInt8]? {
        hash(bytes, with: functions.sha1, length: 20)
    }

    /// SHA-256 of `bytes` (32 bytes); nil without libcrypto.
    package static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8]? {
        hash(bytes, with: functions.sha256, length: 32)
    }

    /// `digest` in lower-case hex, as Nostr writes ids.
    package static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(digest.count * 2)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// OpenSSL's one-shot `unsigned char *SHA1(const unsigned char *d, size_t n, unsigned char *md)`
    /// (and `SHA256`, of the same shape).
    private typealias OneShot =
        @convention(c) (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>?

    private struct Functions: Sendable {
        var sha1: OneShot?
        var sha256: OneShot?
    }

    /// Looked up once: a lookup per message cost a `dlopen` each, and Nostr hashes every event.
    private static let functions: Functions = {
        let library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_NOLOAD)
        // The library stays open for the process's life (libcurl holds it anyway).
        let handle = library ?? UnsafeMutableRawPointer(bitPattern: 0)
        func function(_ name: String) -> OneShot? {
            dlsym(handle, name).map { unsafeBitCast($0, to: OneShot.self) }
        }
        return Functions(sha1: function("SHA1"), sha256: function("SHA256"))
    }()

    private static func hash(_ bytes: some Collection<UInt8>, with function: OneShot?, length: Int) -> [UInt8]? {
        guard let function else { return nil }
        var digest = [UInt8](repeating: 0, count: length)
        let input = Array(bytes)
        let done = input.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                function(input.baseAddress, input.count, output.baseAddress) != nil
            }
        }
        return done ? digest : nil
    }
}
