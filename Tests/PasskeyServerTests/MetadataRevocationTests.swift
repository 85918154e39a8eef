import Foundation
import PasskeyTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `passkey-server metadata import` checks the BLOB's chain against the revocation list its signing certificate names,
/// downloaded from a file server (python3's): a revoked signer is refused and the BLOB in force stays; a list out of
/// reach is a warning, and the BLOB is stored.
@Suite("Revocation of the metadata BLOB's chain", .enabled(if: WebhookSignatureTests.available || WebhookSignatureTests.required, "python3 is not installed"))
struct MetadataRevocationTests {
    @Test("a list that revokes nothing: stored; one that revokes the signer: refused; none in reach: stored with a warning", .timeLimit(.minutes(2)))
    func importChecksRevocation() async throws {
        let folder = try temporaryFolderURL("passkey-metadata-crl")
        defer { try? FileManager.default.removeItem(at: folder) }
        let www = folder.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        let port = try LocalPorts.free()
        let service = try MetadataTrustTests.MetadataService(revocationList: "http://127.0.0.1:\(port)/root.crl")
        let vendor = try AttestationPolicyTests.Vendor(name: "Issued")
        let database = "sqlite:" + folder.appendingPathComponent("data.sqlite").path
        let root = folder.appendingPathComponent("root.pem").path
        try service.rootPEM.write(toFile: root, atomically: true, encoding: .utf8)
        func blob(_ number: Int) throws -> String {
            let path = folder.appendingPathComponent("\(number).jwt").path
            try Data(try service.blob(number: number, model: AttestationPolicyTests.model, vendorRootPEM: vendor.rootPEM)).write(to: URL(fileURLWithPath: path))
            return path
        }
        func importBLOB(_ number: Int) async throws -> (status: Int32, output: String) {
            let file = try blob(number)
            return try await onOwnThread { try runProgram(ServerProcess.executable, ["metadata", "import", file, "--database", database, "--metadata-root", root]) }
        }
        let files = try await MetadataRefreshProcessTests.fileServer(www, port: port)

        try Data(try service.revocationList(revokingSigner: false)).write(to: www.appendingPathComponent("root.crl"))
        let good = try await importBLOB(7)
        #expect(good.status == 0 && !good.output.contains("revocation not checked"), "\(good.output)")

        try Data(try service.revocationList(revokingSigner: true)).write(to: www.appendingPathComponent("root.crl"))
        let revoked = try await importBLOB(8)
        #expect(revoked.status != 0 && revoked.output.contains("metadata_revoked") && revoked.output.contains("the BLOB in force stays no 7"), "\(revoked.output)")

        kill(files.processIdentifier, SIGKILL)
        try await onOwnThread { files.waitUntilExit() }
        let unreachable = try await importBLOB(9)
        #expect(unreachable.status == 0 && unreachable.output.contains("metadata BLOB no 9"), "\(unreachable.output)")
        #expect(unreachable.output.contains("warning: revocation not checked") && unreachable.output.contains("root.crl"), "\(unreachable.output)")
    }
}
