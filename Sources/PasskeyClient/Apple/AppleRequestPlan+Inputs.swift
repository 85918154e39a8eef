import PasskeyWire

// Reading the members of the server's options an Apple request needs, with the errors a browser would raise as values.
extension AppleRequestPlan {
    /// An app's ceremony has no web origin to default the RP ID from: it must be named, and must be a bare domain (the
    /// one in the `webcredentials:` entitlement).
    static func relyingPartyID(_ value: String?, member: String) throws(PasskeyError) -> String {
        guard let value, !value.isEmpty else {
            throw PasskeyError(
                .invalidOptions, stage: .options,
                "\(member) is missing: an app must name the RP ID, the domain of its webcredentials: entitlement")
        }
        guard !value.contains("/"), !value.contains(":"), !value.contains(" ") else {
            throw PasskeyError(.invalidOptions, stage: .options, "\(member) \"\(value.prefix(64))\" is not a bare domain such as example.com")
        }
        return value.lowercased()
    }

    static func challenge(_ value: String) throws(PasskeyError) -> [UInt8] {
        guard let bytes = Base64URL.decode(value), !bytes.isEmpty else {
            throw PasskeyError(.invalidChallenge, stage: .options, "challenge \"\(value.prefix(64))\" is not non-empty base64url")
        }
        return bytes
    }

    /// `user.id` (the user handle): 1 to 64 bytes (WebAuthn L3 §5.4.3).
    static func userID(_ value: String) throws(PasskeyError) -> [UInt8] {
        guard let bytes = Base64URL.decode(value), (1...64).contains(bytes.count) else {
            throw PasskeyError(.invalidOptions, stage: .options, "user.id must be 1 to 64 bytes of base64url")
        }
        return bytes
    }

    /// Public-key descriptors with their IDs decoded; other credential types are skipped (§5.8.3).
    static func descriptors(_ list: [PublicKeyCredentialDescriptorJSON]?, member: String) throws(PasskeyError)
        -> [(id: [UInt8], transports: [AuthenticatorTransport]?)]
    {
        var result: [(id: [UInt8], transports: [AuthenticatorTransport]?)] = []
        for descriptor in list ?? [] where descriptor.type == .publicKey {
            guard let id = Base64URL.decode(descriptor.id), !id.isEmpty else {
                throw PasskeyError(.invalidOptions, stage: .options, "\(member) has an id that is not base64url")
            }
            result.append((id, descriptor.transports))
        }
        return result
    }

    /// The security-key descriptor for a WebAuthn descriptor, or `nil` when its transports say a security key cannot
    /// hold it (only `internal` / `hybrid` / `smart-card`). No usable transport named: try all three.
    static func securityKeyDescriptor(id: [UInt8], transports: [AuthenticatorTransport]?) -> AppleSecurityKeyDescriptor? {
        guard let transports, !transports.isEmpty else {
            return AppleSecurityKeyDescriptor(credentialID: id, transports: AppleSecurityKeyTransport.allCases)
        }
        var usable: [AppleSecurityKeyTransport] = []
        for transport in transports {
            if let apple = AppleSecurityKeyTransport(transport), !usable.contains(apple) { usable.append(apple) }
        }
        return usable.isEmpty ? nil : AppleSecurityKeyDescriptor(credentialID: id, transports: usable)
    }

    /// WebAuthn's default is `preferred`; unknown values are treated as the default (§2.1.1).
    static func userVerification(_ value: UserVerificationRequirement?) -> UserVerificationRequirement {
        switch value {
        case .some(.required): .required
        case .some(.discouraged): .discouraged
        default: .preferred
        }
    }

    static func attestation(_ value: AttestationConveyancePreference?) -> AttestationConveyancePreference {
        switch value {
        case .some(.direct): .direct
        case .some(.indirect): .indirect
        case .some(.enterprise): .enterprise
        default: AttestationConveyancePreference.none
        }
    }

    /// §5.4.4: `residentKey` wins; without it, `requireResidentKey: true` means required, otherwise discouraged.
    static func residentKey(_ selection: AuthenticatorSelectionCriteria?) -> ResidentKeyRequirement {
        switch selection?.residentKey {
        case .some(.required): return .required
        case .some(.preferred): return .preferred
        case .some(.discouraged): return .discouraged
        default: return selection?.requireResidentKey == true ? .required : .discouraged
        }
    }

    /// The authenticator kinds both the app and the server allow. The server's `authenticatorAttachment` narrows the
    /// app's choice; unknown values do not (§2.1.1).
    static func kinds(app: AuthenticatorAttachments, server: AuthenticatorAttachment?) -> AuthenticatorAttachments {
        switch server {
        case .some(.platform): app.intersection(.platform)
        case .some(.crossPlatform): app.intersection(.securityKey)
        default: app
        }
    }

    static func describe(_ kinds: AuthenticatorAttachments) -> String {
        var names: [String] = []
        if kinds.contains(.platform) { names.append("platform") }
        if kinds.contains(.securityKey) { names.append("security keys") }
        return names.isEmpty ? "nothing" : names.joined(separator: " and ")
    }
}
