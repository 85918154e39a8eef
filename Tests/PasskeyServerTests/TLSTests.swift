import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import HummingbirdTesting
import PasskeyServer
import PasskeyStorage
import PasskeyTestSupport
import ServiceLifecycle
import Testing
import X509

@Suite("Direct TLS (--tls-cert, --tls-key)")
struct TLSTests {
    /// A throw-away self-signed certificate for localhost, written as PEM files.
    static func selfSigned() throws -> (certificate: String, key: String) {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("localhost") }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(3600), issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { SubjectAlternativeNames([.dnsName("localhost")]) },
            issuerPrivateKey: Certificate.PrivateKey(key))
        let folder = try temporaryFolderURL("passkey-tls")
        let certificatePath = folder.appendingPathComponent("cert.pem").path
        let keyPath = folder.appendingPathComponent("key.pem").path
        try certificate.serializeAsPEM().pemString.write(toFile: certificatePath, atomically: true, encoding: .utf8)
        try key.pemRepresentation.write(toFile: keyPath, atomically: true, encoding: .utf8)
        return (certificatePath, keyPath)
    }

    @Test("the server speaks HTTPS with the given certificate and sends HSTS")
    func https() async throws {
        let files = try Self.selfSigned()
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.origins = ["https://localhost"]  // port 0: the default origin cannot follow the chosen port
        configuration.database = "memory:"
        configuration.tlsCertificatePath = files.certificate
        configuration.tlsKeyPath = files.key
        let app = try await buildApplication(configuration, repository: InMemoryRepository())
        try await app.test(.ahc(.https)) { client in
            let response = try await client.execute(uri: "/health", method: .get)
            #expect(response.status == .ok)
            #expect(String(buffer: response.body).contains("\"database\":\"ok\""))
            #expect(response.headers[.strictTransportSecurity] == "max-age=31536000")
        }
    }

    @Test("with --tls-cert the default origins are https; on another port than 443 browsers' origin with the port is added")
    func defaultOriginWithTLS() {
        var configuration = ServerConfiguration()
        configuration.port = 8443
        #expect(configuration.effectiveOrigins == ["http://localhost:8443"])
        configuration.tlsCertificatePath = "/etc/cert.pem"
        configuration.tlsKeyPath = "/etc/key.pem"
        #expect(configuration.effectiveOrigins == ["https://localhost:8443"])
        configuration.rpID = "mac.local"
        // An iOS app reports https://<rp id> whatever the port; a browser on the LAN reports the port.
        #expect(configuration.effectiveOrigins == ["https://mac.local", "https://mac.local:8443"])
        #expect(configuration.defaultOrigin == "https://mac.local", "the default iss stays what it was")
        #expect(configuration.linkBase == "https://mac.local:8443", "printed links open in a browser on that port")
        configuration.port = 443
        #expect(configuration.effectiveOrigins == ["https://mac.local"])
        configuration.port = 0
        #expect(configuration.effectiveOrigins == ["https://mac.local"], "port 0 is chosen at start: no origin can name it")
        configuration.tlsCertificatePath = nil
        configuration.port = 8080
        #expect(configuration.effectiveOrigins == ["https://mac.local"], "behind a TLS proxy on 443")
    }

    @Test("a certificate or key file that cannot be read, or a key of another certificate, is named in the error")
    func unreadableFiles() async throws {
        let files = try Self.selfSigned()
        let other = try Self.selfSigned()
        for (certificate, key, named) in [
            ("/nonexistent/cert.pem", files.key, "--tls-cert /nonexistent/cert.pem"), (files.certificate, files.certificate, "--tls-key"),
            (files.certificate, other.key, "--tls-key \(other.key) does not go with the certificate in --tls-cert \(files.certificate)"),
        ] {
            var configuration = ServerConfiguration()
            configuration.port = 0
            configuration.origins = ["https://localhost"]  // port 0: the default origin cannot follow the chosen port
            configuration.database = "memory:"
            configuration.tlsCertificatePath = certificate
            configuration.tlsKeyPath = key
            do {
                _ = try await buildApplication(configuration, repository: InMemoryRepository())
                Issue.record("\(certificate), \(key): accepted")
            } catch let error as ConfigurationError {
                #expect(error.description.hasPrefix(named), "\(error.description)")
            }
        }
    }

    @Test("a certificate without its key is refused at start, in words")
    func halfConfigured() async throws {
        var configuration = ServerConfiguration()
        configuration.database = "memory:"
        configuration.tlsCertificatePath = "/tmp/cert.pem"
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
    }
}

@Suite("Connections that stall")
struct IdleConnectionTests {
    /// Sends `bytes` and returns how long the server took to close the connection (nil if it was still open after
    /// `limit` seconds).
    static func secondsUntilClosed(port: Int, sending bytes: String, limit: Int) -> Double? {
        guard let socket = RawConnection.open(port: port, sending: bytes, limit: limit) else { return nil }
        defer { close(socket) }
        let start = Date()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count == 0 { return Date().timeIntervalSince(start) }  // closed by the server
            if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK ? nil : Date().timeIntervalSince(start) }
        }
    }

    @Test("a body that ends before its Content-Length is request_incomplete (400), not request_too_large")
    func incompleteBody() async throws {
        try await withLiveServer { port in
            let request = "POST /verify-registration HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
            let answer = try await onOwnThread { RawConnection.exchange(port: port, request) }
            // The client closed its sending side only: the answer reaches it and says what happened.
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
            #expect(answer.contains("request_incomplete"), "\(answer)")
        }
    }

    @Test("at shutdown a body still coming gets a short grace, then its connection closes: SIGTERM does not wait 75 s")
    func stalledBodyAtShutdown() async throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.origins = ["https://localhost"]
        configuration.database = "memory:"
        configuration.idleTimeout = 120
        let ports = AsyncStream<Int>.makeStream()
        let capture = LogCapture()
        let app = try await buildApplication(configuration, repository: InMemoryRepository(), logger: capture.logger) { port in ports.continuation.yield(port) }
        let group = ServiceGroup(services: [app], gracefulShutdownSignals: [], cancellationSignals: [], logger: capture.logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.stream.makeAsyncIterator()
            let port = try #require(await iterator.next())
            // The head and the start of a body that announced 100 bytes, then nothing: the client stalls.
            let head = "POST /verify-registration HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"cred\":"
            let socket = try #require(RawConnection.open(port: port, sending: head, limit: 60))
            defer { close(socket) }
            // The server has read the head and waits for the body. (300 ms was not always enough with the whole suite
            // running: the shutdown then found no request in progress, and the 20 s request deadline closed it instead.)
            try await Task.sleep(for: .seconds(1))
            let start = ContinuousClock.now
            await group.triggerGracefulShutdown()
            try await tasks.next()
            let took = ContinuousClock.now - start
            // The grace is 2 s; the idle timeout (120 s here) is what it waited for before. Beside the whole suite on
            // 2 cores the grace did not always end it: the 20 s request deadline did (20.5–21.9 s seen, in 3 runs of 5).
            // Either way the shutdown does not wait for the idle timeout, which is what this protects.
            #expect(took < .seconds(30), "\(took)")
            #expect(took >= .seconds(1), "\(took)")  // the body had its grace to arrive
        }
    }

    @Test("half a request, or none, is dropped after the idle timeout")
    func stalledRequests() async throws {
        try await withLiveServer({ $0.idleTimeout = 1 }) { port in
            // A complete request is answered as usual (on a connection of its own, sent at once).
            let health = try await onOwnThread { RawConnection.exchange(port: port, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n") }
            #expect(health.hasPrefix("HTTP/1.1 200 OK"), "\(health)")
            for partial in ["", "POST /verify-authentication HTTP/1.1\r\nHost: localhost\r\n", "POST /verify-authentication HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{"] {
                let closedAfter = try await onOwnThread { Self.secondsUntilClosed(port: port, sending: partial, limit: 10) }
                #expect(closedAfter != nil && closedAfter ?? 99 < 5, "\(partial.debugDescription): \(String(describing: closedAfter))")
            }
        }
    }
}
