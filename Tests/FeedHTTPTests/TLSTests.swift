import FeedHTTP
import FeedTesting
import Foundation
import Testing

/// TLS certificates are always verified: a self-signed server on 127.0.0.1 is refused by the
/// client, and so by the built `feedcli` that stands on it.
@Suite("TLS verification", .serialized, .timeLimit(.minutes(3)))
struct TLSTests {
    @Test func aSelfSignedCertificateIsRefused() async throws {
        let folder = TestScratch.folder("tls").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let made = try await run(
            "/usr/bin/env",
            [
                "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                "-subj", "/CN=127.0.0.1", "-keyout", folder + "/key.pem", "-out", folder + "/cert.pem",
            ])
        try #require(made == 0, "openssl could not make a certificate")
        let script = """
            import http.server, ssl, sys
            server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[1] + "/cert.pem", sys.argv[1] + "/key.pem")
            server.socket = context.wrap_socket(server.socket, server_side=True)
            open(sys.argv[1] + "/port", "w").write(str(server.server_address[1]))
            server.serve_forever()
            """
        let server = try await PythonServer.start(["-c", script, folder], portFile: folder + "/port")
        let url = "https://127.0.0.1:\(server.port)/posts"

        let client = try HTTPClient()
        #expect(await fetch(client, HTTPRequest(url: url + "/1")).failure?.kind == .tls)

        let state = folder + "/feedcli.sqlite"
        _ = try await Feedcli.run(["feeds", "add", "tls", url, "--kind", "indexed", "--state", state])
        let refused = try await Feedcli.run(["next", "tls", "--state", state, "--retries", "0"])
        #expect(refused.status == 76, "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
    }

    private func run(_ path: String, _ arguments: [String]) async throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try await process.runToExit()
        return process.terminationStatus
    }
}
