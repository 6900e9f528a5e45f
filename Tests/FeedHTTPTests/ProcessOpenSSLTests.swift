import FeedBase
import Testing

/// OpenSSL's exit-time cleanup is switched off before libcurl initializes it
/// (`ProcessOpenSSL`): the switch is found in the process, where libcurl's OpenSSL is.
@Suite("OpenSSL without its exit-time cleanup")
struct ProcessOpenSSLTests {
    @Test func openSSLIsFoundAndInitializedWithoutItsExitHandler() {
        #expect(ProcessOpenSSL.skipExitCleanup(), "OPENSSL_init_crypto is found through the process's global scope")
        #expect(ProcessOpenSSL.skipExitCleanup(), "a second call answers alike")
    }
}
