import PasskeyClient
import PasskeyWire

/// Reading the parts of the options a client must interpret, with the errors a browser would raise as values.
enum CeremonyInputs {
    /// The challenge bytes. Browsers reject options whose challenge is not base64url (TypeError); so do we.
    static func challenge(_ string: String) throws(PasskeyError) -> [UInt8] {
        guard let bytes = Base64URL.decode(string), !bytes.isEmpty else {
            throw PasskeyError(.invalidChallenge, stage: .options, "challenge \"\(string.prefix(64))\" is not non-empty base64url")
        }
        return bytes
    }

    /// The RP ID: the one in the options, or for a website the origin's host (§5.1.3 step 8, §5.1.4.1 step 7).
    /// For a website the RP ID must be the host or a parent domain of it (§5.1.3 step 8, simplified: no public
    /// suffix list); an app's association is its entitlement or asset links, which a client does not check here.
    static func rpID(_ requested: String?, origin policy: OriginPolicy) throws(PasskeyError) -> String {
        let host = policy.webHost
        guard let rpID = (requested ?? host)?.lowercased(), !rpID.isEmpty else {
            throw PasskeyError(.invalidOptions, stage: .options, "the options name no RP ID, and an app origin has no host to default to")
        }
        if let host, host != rpID, !host.hasSuffix("." + rpID) {
            throw PasskeyError(
                .domainNotAssociated, stage: .options, "RP ID \(rpID) is neither the origin's host \(host) nor a parent domain of it")
        }
        return rpID
    }

    /// The user handle (`user.id`): 1 to 64 bytes (§5.4.3).
    static func userHandle(_ string: String) throws(PasskeyError) -> [UInt8] {
        guard let bytes = Base64URL.decode(string), (1...64).contains(bytes.count) else {
            throw PasskeyError(.invalidOptions, stage: .options, "user.id must be 1 to 64 bytes of base64url")
        }
        return bytes
    }

    /// Credential IDs from a descriptor list (`excludeCredentials`, `allowCredentials`); non-public-key types are skipped.
    static func credentialIDs(_ descriptors: [PublicKeyCredentialDescriptorJSON]?, member: String) throws(PasskeyError) -> [[UInt8]] {
        var ids: [[UInt8]] = []
        for descriptor in descriptors ?? [] where descriptor.type == .publicKey {
            guard let id = Base64URL.decode(descriptor.id) else {
                throw PasskeyError(.invalidOptions, stage: .options, "\(member) has an id that is not base64url")
            }
            ids.append(id)
        }
        return ids
    }

    /// The first of the relying party's `pubKeyCredParams` this authenticator supports (§5.1.3 step 10, §6.3.2 step 2).
    /// An empty list means ES256 and RS256 (§5.1.3 step 10).
    static func algorithm(_ parameters: [PublicKeyCredentialParameters], supported: [SigningAlgorithm]) throws(PasskeyError)
        -> SigningAlgorithm
    {
        let offered = parameters.isEmpty ? [COSEAlgorithmIdentifier.es256, .rs256] : parameters.filter { $0.type == .publicKey }.map(\.alg)
        for alg in offered {
            if let algorithm = SigningAlgorithm(coseAlgorithm: alg), supported.contains(algorithm) { return algorithm }
        }
        throw PasskeyError(
            .notSupported, stage: .authenticator,
            "none of the offered algorithms \(offered.map(\.rawValue)) is enabled here (\(supported.map(\.rawValue)))")
    }
}
