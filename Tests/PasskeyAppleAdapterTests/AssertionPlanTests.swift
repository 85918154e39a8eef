import PasskeyClient
import PasskeyWire
import Testing

@Suite("Apple request plan: sign-in, per mediation and OS version")
struct AssertionPlanTests {
    let both: AuthenticatorAttachments = [.platform, .securityKey]

    @Test("modal: platform and security-key requests; a security key gets only credentials it can hold, with key transports")
    func modal() throws {
        let allow = [
            Options.descriptor(Options.credentialA, [.internal, .hybrid]), Options.descriptor(Options.credentialB, [.nfc, .usb]),
            Options.descriptor([0xC1]),
        ]
        let plan = try AppleRequestPlan.assertion(
            AssertionRequest(options: Options.request(allow: allow, userVerification: .required), attachments: both), on: .iOS(16))
        #expect(plan.presentation == .modal)
        #expect(plan.userVerification == .required)
        #expect(plan.platform?.allowedCredentials == [Options.credentialA, Options.credentialB, [0xC1]])
        #expect(
            plan.securityKey?.allowedCredentials == [
                AppleSecurityKeyDescriptor(credentialID: Options.credentialB, transports: [.nfc, .usb]),
                AppleSecurityKeyDescriptor(credentialID: [0xC1], transports: [.usb, .nfc, .bluetooth]),
            ])
        #expect(plan.omissions.isEmpty)

        // Only platform credentials allowed: no security-key request, and that is recorded.
        let platformOnly = try AppleRequestPlan.assertion(
            AssertionRequest(options: Options.request(allow: [Options.descriptor(Options.credentialA, [.internal])]), attachments: both),
            on: .iOS(16))
        #expect(platformOnly.securityKey == nil && platformOnly.platform != nil)
        #expect(platformOnly.omissions.map(\.member) == ["securityKey"])

        // Discoverable (empty allowCredentials): both requests, empty lists.
        let discoverable = try AppleRequestPlan.assertion(AssertionRequest(options: Options.request(), attachments: both), on: .macOS(13))
        #expect(discoverable.platform?.allowedCredentials == [] && discoverable.securityKey?.allowedCredentials == [])
    }

    @Test("immediate: from iOS 16 / macOS 13, platform passkeys only; refused before that without UI")
    func immediate() throws {
        let request = AssertionRequest(options: Options.request(), mediation: .immediate, attachments: both)
        let plan = try AppleRequestPlan.assertion(request, on: .iOS(16))
        #expect(plan.presentation == .immediate)
        #expect(plan.platform != nil && plan.securityKey == nil)
        #expect(plan.omissions.map(\.member) == ["securityKey"])
        #expect(try AppleRequestPlan.assertion(request, on: .macOS(13)).presentation == .immediate)
        for platform in [ApplePlatform.iOS(15, 5), .macOS(12)] {
            let error = capture { () throws(PasskeyError) in try AppleRequestPlan.assertion(request, on: platform) }.error
            #expect(error?.code == .notSupported && error?.stage == .options, "\(platform)")
        }
        let keyOnly = AssertionRequest(options: Options.request(), mediation: .immediate, attachments: .securityKey)
        #expect(capture { () throws(PasskeyError) in try AppleRequestPlan.assertion(keyOnly, on: .iOS(18)) }.error?.code == .notSupported)
    }

    @Test("AutoFill (conditional): iOS and visionOS only, platform passkeys only")
    func autoFill() throws {
        let request = AssertionRequest(options: Options.request(), mediation: .conditional, attachments: both)
        for platform in [ApplePlatform.iOS(16), .iOS(26), .visionOS(1)] {
            let plan = try AppleRequestPlan.assertion(request, on: platform)
            #expect(plan.presentation == .autoFill, "\(platform)")
            #expect(plan.platform != nil && plan.securityKey == nil, "\(platform)")
        }
        for platform in [ApplePlatform.macOS(15), .macOS(26), .iOS(15, 7)] {
            let error = capture { () throws(PasskeyError) in try AppleRequestPlan.assertion(request, on: platform) }.error
            #expect(error?.code == .notSupported, "\(platform)")
        }
    }

    @Test("largeBlob read or write from iOS 17; the browser's refusals (§10.1.5) also for security-key requests; earlier it is left out and recorded")
    func largeBlob() throws {
        let one = [Options.descriptor(Options.credentialA)]
        func plan(
            _ input: JSONObject, allow: [PublicKeyCredentialDescriptorJSON]? = nil, attachments: AuthenticatorAttachments = [.platform, .securityKey],
            on platform: ApplePlatform = .iOS(17)
        ) throws(PasskeyError) -> AppleAssertionPlan {
            try AppleRequestPlan.assertion(
                AssertionRequest(options: Options.request(allow: allow, extensions: ["largeBlob": .object(input)]), attachments: attachments),
                on: platform)
        }
        func refusal(_ input: JSONObject, allow: [PublicKeyCredentialDescriptorJSON]? = nil, attachments: AuthenticatorAttachments = [.platform, .securityKey]) -> String? {
            let error = capture { () throws(PasskeyError) in try plan(input, allow: allow, attachments: attachments) }.error
            return error?.code == .invalidOptions ? error?.reason : "\(String(describing: error))"
        }
        #expect(try plan(["read": true]).platform?.largeBlob == .read)
        #expect(try plan(["read": false]).platform?.largeBlob == nil)
        #expect(try plan(["write": "AQID"], allow: one).platform?.largeBlob == .write([1, 2, 3]))
        let old = try plan(["read": true], on: .iOS(16, 6))
        #expect(old.platform?.largeBlob == nil && old.omissions.map(\.member) == ["extensions.largeBlob"])
        #expect(refusal(["read": true, "write": "AQID"], allow: one)?.contains("cannot both read and write") == true)
        #expect(refusal(["read": false, "write": "AQID"], allow: one)?.contains("cannot both read and write") == true)
        #expect(refusal(["write": "+"], allow: one)?.contains("not base64url") == true)
        #expect(refusal(["write": "AQID"])?.contains("exactly one credential, not 0") == true)
        #expect(refusal(["write": "AQID"], allow: one + [Options.descriptor(Options.credentialB)])?.contains("not 2") == true)
        #expect(refusal(["support": "required"])?.contains("for creating a credential") == true)
        #expect(refusal(["write": "AQID"], attachments: .securityKey)?.contains("exactly one credential") == true)
    }

    @Test("prf eval and evalByCredential from iOS 18 / macOS 15 / visionOS 2")
    func prf() throws {
        let key = Base64URL.encode(Options.credentialA)
        let input: JSONObject = [
            "eval": .object(["first": "AQID", "second": "BAU"]), "evalByCredential": .object([key: .object(["first": "Bg"])]),
        ]
        let request = AssertionRequest(options: Options.request(allow: [Options.descriptor(Options.credentialA)], extensions: ["prf": .object(input)]))
        let plan = try AppleRequestPlan.assertion(request, on: .iOS(18))
        #expect(
            plan.platform?.prf
                == PRFAssertionInput(
                    values: PRFValues(first: [1, 2, 3], second: [4, 5]), perCredential: [Options.credentialA: PRFValues(first: [6])]))
        for platform in [ApplePlatform.iOS(17, 6), .macOS(14), .visionOS(1)] {
            let old = try AppleRequestPlan.assertion(request, on: platform)
            #expect(old.platform?.prf == nil, "\(platform)")
            #expect(old.omissions.map(\.member).contains("extensions.prf"), "\(platform)")
        }
        let bad = AssertionRequest(options: Options.request(extensions: ["prf": .object(["evalByCredential": .object(["%": .object(["first": "AA"])])])]))
        #expect(capture { () throws(PasskeyError) in try AppleRequestPlan.assertion(bad, on: .iOS(18)) }.error?.code == .invalidOptions)
        // As a browser checks (WebAuthn L3 §10.1.4): evalByCredential names credentials of allowCredentials.
        let unlisted = AssertionRequest(options: Options.request(extensions: ["prf": .object(input)]))
        #expect(capture { () throws(PasskeyError) in try AppleRequestPlan.assertion(unlisted, on: .iOS(18)) }.error?.reason.contains("needs allowCredentials") == true)
        let keysOnly = AssertionRequest(options: Options.request(extensions: ["prf": .object(input)]), attachments: .securityKey)
        #expect(capture { () throws(PasskeyError) in try AppleRequestPlan.assertion(keysOnly, on: .iOS(18)) }.error?.code == .invalidOptions)
        let other = AssertionRequest(
            options: Options.request(allow: [Options.descriptor([7, 7, 7, 7])], extensions: ["prf": .object(input)]))
        #expect(
            capture { () throws(PasskeyError) in try AppleRequestPlan.assertion(other, on: .iOS(18)) }.error?.reason
                .contains("allowCredentials does not list") == true)
    }

    @Test("an app must name the RP ID and send a base64url challenge")
    func invalidOptions() {
        let noRP = capture { () throws(PasskeyError) in try AppleRequestPlan.assertion(AssertionRequest(options: Options.request(rpID: nil)), on: .iOS(18)) }
        #expect(noRP.error?.code == .invalidOptions && noRP.error?.stage == .options)
        let badChallenge = capture { () throws(PasskeyError) in
            try AppleRequestPlan.assertion(AssertionRequest(options: Options.request(challenge: "a+b")), on: .iOS(18))
        }
        #expect(badChallenge.error?.code == .invalidChallenge)
        let badID = capture { () throws(PasskeyError) in
            try AppleRequestPlan.assertion(AssertionRequest(options: Options.request(allow: [PublicKeyCredentialDescriptorJSON(id: "***")])), on: .iOS(18))
        }
        #expect(badID.error?.code == .invalidOptions)
    }

    @Test("a pending AutoFill request is replaced by a new one; anything the person is answering refuses the newcomer")
    func admission() {
        #expect(AppleRequestAdmission.decide(pending: nil) == .start)
        #expect(AppleRequestAdmission.decide(pending: .autoFill) == .replacePendingAutoFill)
        for pending in [ApplePresentation.modal, .immediate, .conditionalRegistration] {
            #expect(AppleRequestAdmission.decide(pending: pending) == .refuse, "\(pending)")
        }
    }
}
