import Foundation
import HummingbirdTesting
import PasskeyAPI
import PasskeyAttestation
import PasskeyCore
@testable import PasskeyServer
import PasskeyServerTestSupport
import PasskeyWire
import Testing

/// Passkeys whose model a metadata BLOB reports compromised are flagged wherever passkeys are listed: the backend API's
/// lists and `GET /passkeys/compromised`, the dashboard's user page and data, with the BLOB's names and icons.
@Suite("Compromised passkeys in lists")
struct CompromisedPasskeyListingTests {
    @Test("the backend sees the flag, the model's name and icon on its lists and all flagged passkeys at one call; others are unchanged")
    func backendLists() async throws {
        let vendor = try AttestationPolicyTests.Vendor(name: "Issued")
        let blob = try MetadataPolicyTests.blob(vendor: vendor)
        var harness = try await ConnectHarness()
        let backend = harness.backend
        let repository = harness.server.repository
        let ann = try Device(server: harness.server, credentialID: 1)
        let bo = try Device(server: harness.server, credentialID: 2)
        // Both register before the BLOB arrives: Ann's model is later reported bypassable; Bo's is not reported.
        try await harness.server.run { client in
            for (name, device, model) in [("ann", ann, MetadataPolicyTests.levelOne), ("bo", bo, MetadataPolicyTests.levelTwo)] {
                let options = try await client.call(.get, "/generate-registration-options?username=\(name)")
                let answer = try await client.call(
                    .post, "/verify-registration",
                    json: [
                        "username": .string(name), "challengeKey": options["challengeKey"] ?? nil,
                        "cred": try AttestationPolicyTests.registration(device, options.json, vendor: nil, aaguid: model),
                    ])
                #expect(answer.status == .ok, "\(answer.json)")
            }
            // Without a BLOB: nothing is flagged, and no entry carries the new members.
            let none = try await client.call(.get, "/passkeys/compromised", headers: backend)
            #expect(none.status == .ok && none.json == ["passkeys": []], "\(none.json)")
        }
        harness.server.configuration = MetadataLoading.apply(blob, to: harness.server.configuration, at: MetadataPolicyTests.time)
        harness.server.catalog = AuthenticatorCatalog(blob, at: MetadataPolicyTests.time, signInRefused: AuthenticatorStatus.keyCompromises)
        try await harness.server.run { client in
            let flagged = try await client.call(.get, "/passkeys/compromised", headers: backend)
            #expect(flagged.status == .ok, "\(flagged.json)")
            let answer = try CompromisedPasskeysAnswer(json: flagged.json)
            #expect(answer.passkeys.map(\.username) == ["ann"] && answer.passkeys.first?.passkey.id == Base64URL.encode(ann.authenticator.credentialID))
            let entry = try #require(answer.passkeys.first?.passkey)
            #expect(entry.compromise == AuthenticatorCompromiseJSON(statuses: ["USER_VERIFICATION_BYPASS"], signInRefused: false))
            #expect(entry.provider == "Issued Key" && entry.name == "Issued Key" && entry.icon == MetadataTrustTests.MetadataService.icon)

            let annID = try #require(answer.passkeys.first?.userId)
            let list = try await client.call(.get, "/users/\(annID)/passkeys", headers: backend)
            let parsed = try PasskeyListAnswer(json: list.json)
            #expect(parsed.passkeys.first?.compromise?.statuses == ["USER_VERIFICATION_BYPASS"])
            // Bo's model is listed but not reported: named from the BLOB, no compromise member at all.
            let boUser = try #require(await repository.user(username: "bo"))
            let boList = try await client.call(.get, "/users/\(boUser.id)/passkeys", headers: backend)
            let boEntry = try #require(boList.json.objectValue?["passkeys"]?.arrayValue?.first?.objectValue)
            #expect(boEntry["compromise"] == nil && boEntry["provider"] == "Issued Key")

            let unauthorized = try await client.call(.get, "/passkeys/compromised")
            #expect(unauthorized.status == .unauthorized, "\(unauthorized.json)")
        }
    }

    @Test("the dashboard's user page names the model from the BLOB, shows its icon and the report")
    func dashboardCell() throws {
        let vendor = try AttestationPolicyTests.Vendor(name: "Issued")
        let blob = try MetadataPolicyTests.blob(vendor: vendor)
        var catalog = AuthenticatorCatalog(blob, at: MetadataPolicyTests.time, signInRefused: [.userVerificationBypass])
        let cell = DashboardPages.providerCell(MetadataPolicyTests.levelOne.uppercased(), catalog)
        #expect(cell == #"<img class="model-icon" alt="" src="data:image/png;base64,iVBORw0KGgo=">Issued Key<br><span class="compromised">reported compromised: USER_VERIFICATION_BYPASS (refused at sign-in)</span>"#)
        catalog = .community
        #expect(DashboardPages.providerCell("fbfc3007-154e-4ecc-8c0b-6e020557d7bd", catalog) == "Apple Passwords")
        #expect(DashboardPages.providerCell(MetadataPolicyTests.unlisted, catalog) == "Unknown (\(MetadataPolicyTests.unlisted))")
    }

    @Test("the dashboard's overview says how many models are reported, and its flagged page lists their passkeys with their accounts")
    func dashboardFlaggedPage() async throws {
        let vendor = try AttestationPolicyTests.Vendor(name: "Issued")
        let blob = try MetadataPolicyTests.blob(vendor: vendor)
        let harness = try DashboardHarness()
        let ann = try Device(server: harness.server, credentialID: 1)
        let session = try await harness.server.run { client in
            let session = try await harness.setUp(client)
            let options = try await client.call(.get, "/generate-registration-options?username=ann")
            let answer = try await client.call(
                .post, "/verify-registration",
                json: [
                    "username": "ann", "challengeKey": options["challengeKey"] ?? nil,
                    "cred": try AttestationPolicyTests.registration(ann, options.json, vendor: nil, aaguid: MetadataPolicyTests.levelOne),
                ])
            #expect(answer.status == .ok, "\(answer.json)")
            let overview = String(buffer: try await client.execute(uri: "/dashboard", method: .get, headers: session.headers).body)
            #expect(!overview.contains("/dashboard/flagged"))
            return session
        }
        var reported = harness.server
        reported.catalog = AuthenticatorCatalog(blob, at: MetadataPolicyTests.time, signInRefused: AuthenticatorStatus.keyCompromises)
        let server = reported
        try await server.run { client in
            let overview = String(buffer: try await client.execute(uri: "/dashboard", method: .get, headers: session.headers).body)
            #expect(overview.contains("reports 1 authenticator model compromised") && overview.contains("/dashboard/flagged"), "\(overview)")
            let page = try await client.execute(uri: "/dashboard/flagged", method: .get, headers: session.headers)
            let text = String(buffer: page.body)
            #expect(page.status == .ok)
            let annID = try #require(await server.repository.user(username: "ann")?.id)
            #expect(text.contains("/dashboard/users/\(annID)") && text.contains("USER_VERIFICATION_BYPASS (flagged; signs in)"), "\(text)")
            let anonymous = try await client.execute(uri: "/dashboard/flagged", method: .get)
            #expect(anonymous.status == .seeOther || anonymous.status == .found, "\(anonymous.status)")
        }
    }
}
