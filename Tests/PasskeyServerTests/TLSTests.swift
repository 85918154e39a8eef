import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import PasskeyServer
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
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
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
        configuration.database = "memory:"
        configuration.tlsCertificatePath = files.certificate
        configuration.tlsKeyPath = files.key
        let app = try await buildApplication(configuration)
        try await app.test(.ahc(.https)) { client in
            let response = try await client.execute(uri: "/health", method: .get)
            #expect(response.status == .ok)
            #expect(String(buffer: response.body).contains("\"database\":\"ok\""))
            #expect(response.headers[.strictTransportSecurity] == "max-age=31536000")
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
