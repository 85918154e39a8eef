import PasskeyClient
import PasskeyWire
import Testing

@Suite("Apple request plan: registration, per OS version")
struct RegistrationPlanTests {
    @Test("iOS 16.0: a platform request without excludedCredentials, largeBlob or prf, each omission recorded")
    func iOS16() throws {
        let options = Options.creation(
            exclude: Options.exclusions, extensions: ["largeBlob": .object(["support": "preferred"]), "prf": .object([:])])
        let plan = try AppleRequestPlan.registration(RegistrationRequest(options: options), on: .iOS(16))
        #expect(plan.relyingPartyID == "example.com")
        #expect(plan.challenge == [UInt8](repeating: 7, count: 32))
        #expect(plan.userID == [UInt8](repeating: 1, count: 16))
        #expect(plan.userName == "ann@example.com" && plan.userDisplayName == "Ann")
        #expect(plan.presentation == .modal)
        #expect(plan.platform == AppleRegistrationPlan.Platform(excludedCredentials: nil, largeBlob: nil, prf: nil))
        #expect(plan.securityKey == nil)
        #expect(plan.hasExcludedCredentials)
        #expect(plan.omissions.map(\.member) == ["excludeCredentials", "extensions.largeBlob", "extensions.prf"])
    }

    @Test("the OS version decides each member: largeBlob from 17.0, excludedCredentials from 17.4, prf from 18.0")
    func featureCutoffs() throws {
        let options = Options.creation(
            exclude: Options.exclusions,
            extensions: ["largeBlob": .object(["support": "preferred"]), "prf": .object(["eval": .object(["first": "AQID"])])])
        let request = RegistrationRequest(options: options)
        let cases: [(ApplePlatform, excluded: Bool, largeBlob: Bool, prf: Bool)] = [
            (.iOS(16, 6), false, false, false), (.iOS(17, 0), false, true, false), (.iOS(17, 3), false, true, false),
            (.iOS(17, 4), true, true, false), (.iOS(18, 0), true, true, true), (.iOS(26, 0), true, true, true),
            (.macOS(13, 4), false, false, false), (.macOS(13, 5), true, false, false), (.macOS(14), true, true, false),
            (.macOS(15), true, true, true), (.visionOS(1), false, true, false), (.visionOS(2), false, true, true),
        ]
        for (platform, excluded, largeBlob, prf) in cases {
            let plan = try AppleRequestPlan.registration(request, on: platform)
            #expect(plan.platform?.excludedCredentials == (excluded ? [Options.credentialA, Options.credentialB] : nil), "\(platform)")
            #expect(plan.platform?.largeBlob == (largeBlob ? LargeBlobRegistrationInput.preferred : nil), "\(platform)")
            #expect(plan.platform?.prf == (prf ? PRFRegistrationInput.evaluate(PRFValues(first: [1, 2, 3])) : nil), "\(platform)")
            #expect(plan.omissions.contains { $0.member == "excludeCredentials" } == !excluded, "\(platform)")
        }
        // evalByCredential has no credential to name yet: refused as a browser refuses it (WebAuthn L3 §10.1.4).
        let byCredential = RegistrationRequest(
            options: Options.creation(extensions: ["prf": .object(["evalByCredential": .object(["AQID": .object(["first": "AQID"])])])]))
        #expect(capture { () throws(PasskeyError) in try AppleRequestPlan.registration(byCredential, on: .iOS(18)) }.error?.code == .invalidOptions)
        // largeBlob reads and writes belong to sign-in (§10.1.5), also when only a security key may answer; an unknown
        // `support` value is ignored, as a browser ignores it.
        for input: JSONObject in [["read": true], ["write": "AQID"], ["support": "required", "read": false]] {
            for attachments: AuthenticatorAttachments in [[.platform, .securityKey], .securityKey] {
                let request = RegistrationRequest(options: Options.creation(extensions: ["largeBlob": .object(input)]), attachments: attachments)
                let error = capture { () throws(PasskeyError) in try AppleRequestPlan.registration(request, on: .iOS(18)) }.error
                #expect(error?.code == .invalidOptions && error?.reason.contains("for sign-in") == true, "\(input)")
            }
        }
        let unknown = RegistrationRequest(options: Options.creation(extensions: ["largeBlob": .object(["support": "always"])]))
        #expect(try AppleRequestPlan.registration(unknown, on: .iOS(18)).platform?.largeBlob == .preferred)
    }

    @Test("largeBlob support required (§10.1.5): platform passkeys from iOS 17 only, never security keys; nothing left is not_supported")
    func largeBlobRequired() throws {
        let options = Options.creation(extensions: ["largeBlob": .object(["support": "required"])])
        let both = RegistrationRequest(options: options, attachments: [.platform, .securityKey])
        let plan = try AppleRequestPlan.registration(both, on: .iOS(17))
        #expect(plan.platform?.largeBlob == .required && plan.securityKey == nil)
        #expect(plan.omissions.map(\.member) == ["securityKey"])
        for (request, platform) in [(both, ApplePlatform.iOS(16, 6)), (RegistrationRequest(options: options, attachments: .securityKey), .iOS(18))] {
            let error = capture { () throws(PasskeyError) in try AppleRequestPlan.registration(request, on: platform) }.error
            #expect(error?.code == .notSupported, "\(platform)")
            #expect(error?.reason.contains("extensions.largeBlob.support is required") == true, "\(error?.reason ?? "")")
        }
        // Preferred keeps every authenticator: the result's `supported` says what the one used can do.
        let preferred = RegistrationRequest(
            options: Options.creation(extensions: ["largeBlob": .object(["support": "preferred"])]), attachments: [.platform, .securityKey])
        #expect(try AppleRequestPlan.registration(preferred, on: .iOS(17)).securityKey != nil)
    }

    @Test("conditional registration (automatic upgrade) from iOS 18 / macOS 15, platform passkeys only; refused earlier without UI")
    func conditional() throws {
        let request = RegistrationRequest(options: Options.creation(), style: .conditional, attachments: [.platform, .securityKey])
        let plan = try AppleRequestPlan.registration(request, on: .iOS(18))
        #expect(plan.presentation == .conditionalRegistration)
        #expect(plan.platform != nil && plan.securityKey == nil)
        #expect(plan.omissions.map(\.member) == ["securityKey"])
        for platform in [ApplePlatform.iOS(17, 4), .macOS(14, 6), .visionOS(1)] {
            let error = capture { () throws(PasskeyError) in try AppleRequestPlan.registration(request, on: platform) }.error
            #expect(error?.code == .notSupported && error?.stage == .options, "\(platform)")
        }
        let keyOnly = RegistrationRequest(options: Options.creation(), style: .conditional, attachments: .securityKey)
        #expect(capture { () throws(PasskeyError) in try AppleRequestPlan.registration(keyOnly, on: .iOS(18)) }.error?.code == .notSupported)
    }

    @Test("security keys: algorithms in order, exclusions keep only key transports, resident key and preferences normalized")
    func securityKey() throws {
        let options = Options.creation(
            algorithms: [.edDSA, .es256], exclude: Options.exclusions + [Options.descriptor([0xC1])],
            selection: AuthenticatorSelectionCriteria(requireResidentKey: true, userVerification: "whatever"), attestation: .direct)
        let plan = try AppleRequestPlan.registration(RegistrationRequest(options: options, attachments: .securityKey), on: .iOS(16))
        #expect(plan.platform == nil)
        #expect(plan.securityKey?.algorithms == [.edDSA, .es256])
        #expect(
            plan.securityKey?.excludedCredentials == [
                AppleSecurityKeyDescriptor(credentialID: Options.credentialB, transports: [.usb]),
                AppleSecurityKeyDescriptor(credentialID: [0xC1], transports: [.usb, .nfc, .bluetooth]),
            ])
        #expect(plan.securityKey?.residentKey == .required)
        #expect(plan.userVerification == .preferred)
        #expect(plan.attestation == .direct)
        #expect(plan.omissions.isEmpty)
    }

    @Test("the server's authenticatorAttachment narrows the app's choice; no overlap is not_supported")
    func attachments() throws {
        let both: AuthenticatorAttachments = [.platform, .securityKey]
        let crossPlatform = Options.creation(selection: AuthenticatorSelectionCriteria(authenticatorAttachment: .crossPlatform))
        let plan = try AppleRequestPlan.registration(RegistrationRequest(options: crossPlatform, attachments: both), on: .iOS(17))
        #expect(plan.platform == nil && plan.securityKey != nil)
        let platformOnly = Options.creation(selection: AuthenticatorSelectionCriteria(authenticatorAttachment: .platform, residentKey: .preferred))
        let both2 = try AppleRequestPlan.registration(RegistrationRequest(options: platformOnly, attachments: both), on: .iOS(17))
        #expect(both2.platform != nil && both2.securityKey == nil)
        let refused = capture { () throws(PasskeyError) in
            try AppleRequestPlan.registration(RegistrationRequest(options: platformOnly, attachments: .securityKey), on: .iOS(17))
        }
        #expect(refused.error?.code == .notSupported)
        #expect(refused.error?.reason.contains("authenticatorAttachment platform") == true)
    }

    @Test("platform passkeys are ES256: without it the platform request is dropped, and alone it is not_supported")
    func algorithms() throws {
        let rsaOnly = Options.creation(algorithms: [.rs256])
        let error = capture { () throws(PasskeyError) in try AppleRequestPlan.registration(RegistrationRequest(options: rsaOnly), on: .iOS(18)) }.error
        #expect(error?.code == .notSupported)
        let plan = try AppleRequestPlan.registration(RegistrationRequest(options: rsaOnly, attachments: [.platform, .securityKey]), on: .iOS(18))
        #expect(plan.platform == nil && plan.securityKey?.algorithms == [.rs256])
        #expect(plan.omissions.map(\.member) == ["platform"])
        // No pubKeyCredParams means ES256 and RS256 (WebAuthn L3 §5.1.3).
        let empty = try AppleRequestPlan.registration(RegistrationRequest(options: Options.creation(algorithms: [])), on: .iOS(18))
        #expect(empty.platform != nil)
    }

    @Test("unusable options fail before any UI with option-stage codes")
    func invalidOptions() {
        func code(_ options: PublicKeyCredentialCreationOptionsJSON) -> PasskeyError.Code? {
            capture { () throws(PasskeyError) in try AppleRequestPlan.registration(RegistrationRequest(options: options), on: .iOS(18)) }.error?.code
        }
        #expect(code(Options.creation(rpID: nil)) == .invalidOptions)
        #expect(code(Options.creation(rpID: "https://example.com")) == .invalidOptions)
        #expect(code(Options.creation(challenge: "not base64url!")) == .invalidChallenge)
        #expect(code(Options.creation(challenge: "")) == .invalidChallenge)
        #expect(code(Options.creation(userID: Base64URL.encode([UInt8](repeating: 0, count: 65)))) == .invalidOptions)
        #expect(code(Options.creation(exclude: [PublicKeyCredentialDescriptorJSON(id: "+/=")])) == .invalidOptions)
        #expect(code(Options.creation(extensions: ["prf": .object(["eval": .object(["first": "%%"])])])) == .invalidOptions)
    }

    @Test("credProps is recorded for the conversion; the display name falls back to the user name")
    func credProps() throws {
        var options = Options.creation(extensions: ["credProps": true])
        options.user.displayName = ""
        let plan = try AppleRequestPlan.registration(RegistrationRequest(options: options), on: .iOS(17))
        #expect(plan.credPropsRequested)
        #expect(plan.userDisplayName == "ann@example.com")
        #expect(plan.attestation == AttestationConveyancePreference.none)
        #expect(plan.userVerification == .preferred)
    }
}
