import PasskeyWire

extension AppleRequestPlan {
    /// The registration AuthenticationServices should run for `request` on `platform`.
    ///
    /// Throws before any UI when the request cannot work here: unusable options (``PasskeyError/Code/invalidOptions``,
    /// ``PasskeyError/Code/invalidChallenge``), or nothing left to ask (``PasskeyError/Code/notSupported``: the app's and
    /// the server's attachments do not meet, conditional create before iOS 18, only algorithms a platform passkey
    /// cannot use). Members the OS lacks are left out and listed in ``AppleRegistrationPlan/omissions``.
    public static func registration(_ request: RegistrationRequest, on platform: ApplePlatform) throws(PasskeyError)
        -> AppleRegistrationPlan
    {
        let options = request.options
        let rpID = try relyingPartyID(options.rp.id, member: "rp.id")
        let challenge = try challenge(options.challenge)
        let userID = try userID(options.user.id)
        let excluded = try descriptors(options.excludeCredentials, member: "excludeCredentials")
        var omissions: [Omission] = []

        var kinds = kinds(app: request.attachments, server: options.authenticatorSelection?.authenticatorAttachment)
        if kinds.isEmpty {
            throw PasskeyError(
                .notSupported, stage: .options,
                "the app allows \(describe(request.attachments)) but the server asks for authenticatorAttachment "
                    + "\(options.authenticatorSelection?.authenticatorAttachment?.rawValue ?? "-")")
        }
        let presentation = try registrationPresentation(request.style, on: platform, kinds: &kinds, omissions: &omissions)

        // Platform passkeys are ES256 only. An empty list means ES256 and RS256 (§5.1.3 step 10).
        let algorithms = options.pubKeyCredParams.isEmpty
            ? [COSEAlgorithmIdentifier.es256, .rs256] : options.pubKeyCredParams.filter { $0.type == .publicKey }.map(\.alg)
        // Read (and refused when malformed) whatever authenticator answers, as a browser does; only platform requests carry them.
        let prfInput = try PRFInputs.registration(options.extensions)
        let largeBlobInput = try LargeBlobInputs.registration(options.extensions)
        narrowRegistrationKinds(&kinds, algorithms: algorithms, largeBlob: largeBlobInput, on: platform, omissions: &omissions)
        guard !kinds.isEmpty else {
            throw PasskeyError(
                .notSupported, stage: .options,
                "no authenticator here can answer: " + omissions.map(\.description).joined(separator: "; "))
        }

        let platformRequest = kinds.contains(.platform)
            ? platformRegistration(excluded: excluded, largeBlob: largeBlobInput, prf: prfInput, on: platform, omissions: &omissions)
            : nil
        var securityKeyRequest: AppleRegistrationPlan.SecurityKey?
        if kinds.contains(.securityKey) {
            // A credential that lives only on a phone or in a keychain cannot be on the key: nothing to exclude there.
            let keyExcluded = excluded.compactMap { securityKeyDescriptor(id: $0.id, transports: $0.transports) }
            securityKeyRequest = AppleRegistrationPlan.SecurityKey(
                algorithms: algorithms, excludedCredentials: keyExcluded, residentKey: residentKey(options.authenticatorSelection))
        }

        return AppleRegistrationPlan(
            relyingPartyID: rpID, challenge: challenge, userID: userID, userName: options.user.name,
            userDisplayName: options.user.displayName.isEmpty ? options.user.name : options.user.displayName,
            userVerification: userVerification(options.authenticatorSelection?.userVerification),
            attestation: attestation(options.attestation), presentation: presentation, platform: platformRequest,
            securityKey: securityKeyRequest, credPropsRequested: options.extensions?["credProps"]?.boolValue == true,
            omissions: omissions, hasExcludedCredentials: !excluded.isEmpty)
    }

    /// Conditional registration (automatic passkey upgrade) makes platform passkeys only, from iOS 18 / macOS 15.
    private static func registrationPresentation(
        _ style: RegistrationStyle, on platform: ApplePlatform, kinds: inout AuthenticatorAttachments, omissions: inout [Omission]
    ) throws(PasskeyError) -> ApplePresentation {
        guard style == .conditional else { return .modal }
        guard platform.supports(.conditionalRegistration) else {
            throw PasskeyError(
                .notSupported, stage: .options, "conditional registration (automatic passkey upgrade) needs iOS 18 or macOS 15; this is \(platform)")
        }
        if kinds.contains(.securityKey) {
            omissions.append(Omission("securityKey", "conditional registration creates platform passkeys only"))
            kinds.remove(.securityKey)
        }
        guard kinds.contains(.platform) else {
            throw PasskeyError(.notSupported, stage: .options, "conditional registration creates platform passkeys only")
        }
        return .conditionalRegistration
    }

    /// Leaves out the kinds of authenticator that cannot meet the options here, saying why in `omissions`.
    private static func narrowRegistrationKinds(
        _ kinds: inout AuthenticatorAttachments, algorithms: [COSEAlgorithmIdentifier], largeBlob: LargeBlobRegistrationInput?,
        on platform: ApplePlatform, omissions: inout [Omission]
    ) {
        if kinds.contains(.platform), !algorithms.contains(.es256) {
            omissions.append(Omission("platform", "platform passkeys use ES256 (-7), which pubKeyCredParams does not offer"))
            kinds.remove(.platform)
        }
        for (kind, feature, member) in [
            (AuthenticatorAttachments.platform, AppleFeature.platformCredentials, "platform"),
            (.securityKey, .securityKeys, "securityKey"),
        ] where kinds.contains(kind) && !platform.supports(feature) {
            omissions.append(Omission(member, "\(platform) has no \(feature.rawValue)"))
            kinds.remove(kind)
        }
        // WebAuthn L3 §10.1.5 registration step 2: with `support: "required"` only an authenticator that can store
        // large blobs is a candidate. Through AuthenticationServices that is a platform passkey from iOS 17 / macOS 14:
        // it has no large blobs for security keys.
        guard largeBlob == .required else { return }
        if kinds.contains(.securityKey) {
            omissions.append(
                Omission("securityKey", "extensions.largeBlob.support is required, and AuthenticationServices stores no large blobs on security keys"))
            kinds.remove(.securityKey)
        }
        if kinds.contains(.platform), !platform.supports(.largeBlob) {
            omissions.append(Omission("platform", "extensions.largeBlob.support is required, and \(platform) has no largeBlob (iOS 17 / macOS 14)"))
            kinds.remove(.platform)
        }
    }

    /// The platform request, without what this OS version cannot ask for.
    private static func platformRegistration(
        excluded: [(id: [UInt8], transports: [AuthenticatorTransport]?)], largeBlob: LargeBlobRegistrationInput?,
        prf: PRFRegistrationInput?, on platform: ApplePlatform, omissions: inout [Omission]
    ) -> AppleRegistrationPlan.Platform {
        var excludedIDs: [[UInt8]]?
        if platform.supports(.platformExcludedCredentials) {
            excludedIDs = excluded.map { $0.id }
        } else if !excluded.isEmpty {
            omissions.append(
                Omission(
                    "excludeCredentials",
                    "\(platform) cannot exclude credentials from platform registrations (iOS 17.4 / macOS 13.5); an existing passkey for this user is replaced"
                ))
        }
        var largeBlob = largeBlob
        if largeBlob != nil, !platform.supports(.largeBlob) {
            omissions.append(Omission("extensions.largeBlob", "\(platform) has no largeBlob (iOS 17 / macOS 14)"))
            largeBlob = nil
        }
        var prf = prf
        if prf != nil, !platform.supports(.prf) {
            omissions.append(Omission("extensions.prf", "\(platform) has no prf (iOS 18 / macOS 15)"))
            prf = nil
        }
        return AppleRegistrationPlan.Platform(excludedCredentials: excludedIDs, largeBlob: largeBlob, prf: prf)
    }
}
