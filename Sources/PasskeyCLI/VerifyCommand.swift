import ArgumentParser
import Foundation
import PasskeyDiagnostics
import PasskeyWire

/// `passkey verify --fixture FILE.json`: runs the real verifier on one case in the fixture schema and says which check
/// failed, with what was expected and what was received.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a registration or sign-in response described by a fixture file.",
        discussion: """
            The file holds the credential JSON as a browser posts it, the relying party's expectations (challenge, \
            origins, RP ID, user verification), the stored credential for sign-ins and the trust roots and pinned time \
            for registrations (schema: fixtureVersion 1). Root paths resolve relative to the file.

            Exit status: 0 valid, 1 invalid, 2 usage error or unreadable file.
            """
    )

    @Option(name: .long, help: "The fixture file (JSON).")
    var fixture: String

    @Flag(name: .long, help: "Print a JSON object instead of text.")
    var json = false

    @Flag(name: .long, help: "Accept RS1 (RSASSA-PKCS1-v1_5 with SHA-1) credential keys.")
    var allowLegacyAlgorithms = false

    func run() throws {
        let url = URL(fileURLWithPath: fixture)
        let report: VerificationReport
        do {
            let loaded = try Self.load(url)
            report = try FixtureVerifier(allowLegacyAlgorithms: allowLegacyAlgorithms).verify(loaded)
        } catch {
            if json {
                let body = CeremonyFailure.failureJSON(
                    error: "fixture_unreadable", stage: "input", message: error.description, detail: error.description)
                print(body.prettyPrinted())
            } else {
                FileHandle.printError("passkey verify: \(shown(error.description))")
            }
            throw ExitCode(CLIExit.usage.rawValue)
        }
        print(json ? report.json.prettyPrinted() : report.humanText)
        if !report.isValid { throw ExitCode(CLIExit.refused.rawValue) }
    }

    /// Reads the fixture through ``CLIFile`` (its errors say why a file cannot be read); the fixture reader checks the
    /// schema version.
    static func load(_ url: URL) throws(FixtureError) -> VerificationFixture {
        let data: [UInt8]
        do { data = try CLIFile.read(url.path) } catch { throw FixtureError(error.description) }
        return try VerificationFixture(bytes: data, url: url)
    }
}
