import FeedBase
import Testing

/// OpenSSL's exit-time cleanup is switched off before libcurl initializes it
/// (`OpenSSLExitCleanup`): the switch is found in the process, where libcurl's OpenSSL is.
@Suite("OpenSSL without its exit-time cleanup")
struct OpenSSLExitCleanupTests {
    @Test func openSSLIsFoundAndInitializedWithoutItsExitHandler() {
        #expect(OpenSSLExitCleanup.skip(), "OPENSSL_init_crypto is found through the process's global scope")
        #expect(OpenSSLExitCleanup.skip(), "a second call answers alike")
    }
}
