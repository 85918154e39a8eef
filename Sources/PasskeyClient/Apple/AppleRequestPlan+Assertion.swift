import PasskeyWire

extension AppleRequestPlan {
    /// The sign-in AuthenticationServices should run for `request` on `platform`.
    ///
    /// Mediation decides the providers: AutoFill takes platform assertion requests only, and an immediate request
    /// leaves security keys out (a key is never "immediately available": it needs a tap, and Apple couples it to the
    /// sheet). Throws ``PasskeyError/Code/notSupported`` before any UI when the mediation does not exist on this OS
    /// (AutoFill on macOS, immediate before iOS 16) or no provider is left.
    public static func assertion(_ request: AssertionRequest, on platform: ApplePlatform) throws(PasskeyError) -> AppleAssertionPlan {
        let options = request.options
        let rpID = try relyingPartyID(options.rpId, member: "rpId")
        let challenge = try challenge(options.challenge)
        let allowed = try descriptors(options.allowCredentials, member: "allowCredentials")
        var omissions: [Omission] = []
        var kinds = request.attachments

        let presentation: ApplePresentation
        switch request.mediation {
        case .modal:
            presentation = .modal
        case .immediate:
            guard platform.supports(.immediateMediation) else {
                throw PasskeyError(.notSupported, stage: .options, "immediate sign-in needs iOS 16 or macOS 13; this is \(platform)")
            }
            presentation = .immediate
            if kinds.contains(.securityKey) {
                omissions.append(Omission("securityKey", "an immediate request offers passkeys on this device only"))
                kinds.remove(.securityKey)
            }
        case .conditional:
            guard platform.supports(.autoFillAssistedRequests) else {
                throw PasskeyError(.notSupported, stage: .options, "AutoFill-assisted sign-in needs iOS 16 or visionOS; this is \(platform)")
            }
            presentation = .autoFill
            if kinds.contains(.securityKey) {
                omissions.append(Omission("securityKey", "AutoFill offers platform passkeys only"))
                kinds.remove(.securityKey)
            }
        }

        if kinds.contains(.platform), !platform.supports(.platformCredentials) {
            omissions.append(Omission("platform", "\(platform) has no platformCredentials"))
            kinds.remove(.platform)
        }
        if kinds.contains(.securityKey), !platform.supports(.securityKeys) {
            omissions.append(Omission("securityKey", "\(platform) has no securityKeys"))
            kinds.remove(.securityKey)
        }

        // Read (and refused when malformed) whatever authenticator answers, as a browser does; only platform requests carry it.
        let prfInput = try PRFInputs.assertion(options.extensions, allowCredentials: allowed.map { $0.id })
        let largeBlobInput = try LargeBlobInputs.assertion(options.extensions, allowCredentials: allowed.map { $0.id })

        var securityKeyRequest: AppleAssertionPlan.SecurityKey?
        if kinds.contains(.securityKey) {
            let keyAllowed = allowed.compactMap { securityKeyDescriptor(id: $0.id, transports: $0.transports) }
            if !allowed.isEmpty, keyAllowed.isEmpty {
                omissions.append(Omission("securityKey", "no credential in allowCredentials can be on a security key (transports)"))
            } else {
                securityKeyRequest = AppleAssertionPlan.SecurityKey(allowedCredentials: keyAllowed)
            }
        }

        var platformRequest: AppleAssertionPlan.Platform?
        if kinds.contains(.platform) {
            var largeBlob = largeBlobInput
            if largeBlob != nil, !platform.supports(.largeBlob) {
                omissions.append(Omission("extensions.largeBlob", "\(platform) has no largeBlob (iOS 17 / macOS 14)"))
                largeBlob = nil
            }
            var prf = prfInput
            if prf != nil, !platform.supports(.prf) {
                omissions.append(Omission("extensions.prf", "\(platform) has no prf (iOS 18 / macOS 15)"))
                prf = nil
            }
            platformRequest = AppleAssertionPlan.Platform(allowedCredentials: allowed.map { $0.id }, largeBlob: largeBlob, prf: prf)
        }

        guard platformRequest != nil || securityKeyRequest != nil else {
            throw PasskeyError(
                .notSupported, stage: .options,
                "no authenticator here can answer \(describe(request.attachments)) with \(request.mediation.rawValue) mediation"
                    + (omissions.isEmpty ? "" : ": " + omissions.map(\.description).joined(separator: "; ")))
        }
        return AppleAssertionPlan(
            relyingPartyID: rpID, challenge: challenge, userVerification: userVerification(options.userVerification),
            presentation: presentation, platform: platformRequest, securityKey: securityKeyRequest, omissions: omissions)
    }
}
