import NIOSSL

/// TLS for the server itself (`--tls-cert`, `--tls-key`), read and checked at start-up.
enum TLSServer {
    /// The server's TLS configuration, or nil when none is set. Each file is read here, and the key checked against the
    /// certificate, so a wrong file is a start-up error that names it rather than a failure at the first connection.
    static func configuration(_ configuration: ServerConfiguration) throws(ConfigurationError) -> TLSConfiguration? {
        guard let certificate = configuration.tlsCertificatePath, let key = configuration.tlsKeyPath else { return nil }
        let chain: [NIOSSLCertificateSource]
        let privateKey: NIOSSLPrivateKey
        do { chain = try NIOSSLCertificate.fromPEMFile(certificate).map { NIOSSLCertificateSource.certificate($0) } } catch {
            throw ConfigurationError("--tls-cert \(certificate): not a readable PEM certificate chain (\(error))")
        }
        do { privateKey = try NIOSSLPrivateKey(file: key, format: .pem) } catch {
            throw ConfigurationError("--tls-key \(key): not a readable PEM private key (\(error))")
        }
        guard !chain.isEmpty else { throw ConfigurationError("--tls-cert \(certificate): no certificate in the file") }
        let tlsConfiguration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(privateKey))
        // A context made now checks the key against the certificate (BoringSSL), which would otherwise happen when the
        // server starts listening and say only "failedToLoadPrivateKey".
        do { _ = try NIOSSLContext(configuration: tlsConfiguration) } catch {
            throw ConfigurationError("--tls-key \(key) does not go with the certificate in --tls-cert \(certificate) (\(error))")
        }
        return tlsConfiguration
    }
}
