import Foundation
import PasskeyClient
import PasskeyWire

/// The JSON document a ``FileCredentialStore`` writes, version 1:
///
/// ```json
/// {"format": "passkey-software-credentials", "version": 1,
///  "credentials": [{"id": "<b64url>", "rpId": "example.com", "userHandle": "<b64url>", "userName": "ann",
///                   "userDisplayName": "Ann", "algorithm": -7, "privateKey": "<b64url>", "signCount": 3,
///                   "backupEligible": false, "backupState": false, "createdAt": 1700000000000, "lastUsedAt": null}]}
/// ```
///
/// Version 2 is version 1 with a member `"prfSecret": "<b64url>"` (32 bytes) on credentials created with the `prf`
/// extension. A file is written as version 2 only when a credential has one, so a release that reads only version 1
/// refuses such a file rather than rewriting it without the secrets (which would change every PRF output).
///
/// Version 3 adds `"largeBlobSupported": true` on credentials created with the `largeBlob` extension, and
/// `"largeBlob": "<b64url>"` on those a blob was written to; for the same reason a file is version 3 only when a
/// credential supports large blobs.
///
/// Times are Unix milliseconds. Reading is strict: anything missing, mistyped or impossible (a key that is not a key,
/// a duplicate ID, a newer version) is ``PasskeyError/Code/storageCorrupted`` naming the credential and member,
/// never a crash and never a silently dropped credential.
enum CredentialFileFormat {
    static let formatName = "passkey-software-credentials"
    /// The newest version this release reads and writes.
    static let version = 3

    static func encode(_ credentials: [StoredCredential]) -> [UInt8] {
        var document = JSONObject()
        document["format"] = .string(formatName)
        document["version"] = .number(Double(version(for: credentials)))
        document["credentials"] = .array(credentials.map(encode))
        var bytes = JSONValue.object(document).prettyPrinted().utf8.map { $0 }
        bytes.append(0x0a)
        return bytes
    }

    /// The oldest version that holds everything in `credentials`, so older releases keep reading files they can.
    static func version(for credentials: [StoredCredential]) -> Int {
        if credentials.contains(where: \.largeBlobSupported) { return 3 }
        if credentials.contains(where: { $0.prfSecret != nil }) { return 2 }
        return 1
    }

    private static func encode(_ c: StoredCredential) -> JSONValue {
        var o = JSONObject()
        o["id"] = .string(Base64URL.encode(c.id))
        o["rpId"] = .string(c.rpID)
        o["userHandle"] = .string(Base64URL.encode(c.userHandle))
        o["userName"] = .string(c.userName)
        o["userDisplayName"] = .string(c.userDisplayName)
        o["algorithm"] = .number(Double(c.algorithm.coseAlgorithm.rawValue))
        o["privateKey"] = .string(Base64URL.encode(c.privateKey))
        o["signCount"] = .number(Double(c.signCount))
        o["backupEligible"] = .bool(c.backupEligible)
        o["backupState"] = .bool(c.backupState)
        o["createdAt"] = .number(Double(milliseconds(c.createdAt)))
        o["lastUsedAt"] = c.lastUsedAt.map { .number(Double(milliseconds($0))) } ?? .null
        if let secret = c.prfSecret { o["prfSecret"] = .string(Base64URL.encode(secret)) }
        if c.largeBlobSupported { o["largeBlobSupported"] = .bool(true) }
        if let blob = c.largeBlob { o["largeBlob"] = .string(Base64URL.encode(blob)) }
        return .object(o)
    }

    static func decode(_ bytes: [UInt8], file: String) throws(PasskeyError) -> [StoredCredential] {
        func corrupted(_ reason: String) -> PasskeyError {
            PasskeyError(.storageCorrupted, stage: .storage, "\(file): \(reason)")
        }
        let document: JSONValue
        do {
            document = try JSONValue.parse(bytes)
        } catch {
            throw corrupted("not JSON (\(error.description))")
        }
        guard let root = document.objectValue else { throw corrupted("the document is not a JSON object") }
        guard root["format"]?.stringValue == formatName else {
            throw corrupted("not a credential file (member \"format\" is not \"\(formatName)\")")
        }
        guard let fileVersion = root["version"]?.intValue else { throw corrupted("member \"version\" is missing or not an integer") }
        guard (1...version).contains(fileVersion) else {
            throw corrupted(
                fileVersion > version
                    ? "written in format version \(fileVersion) by a newer release; this release reads version \(version)"
                    : "unknown format version \(fileVersion)")
        }
        guard let entries = root["credentials"]?.arrayValue else { throw corrupted("member \"credentials\" is missing or not an array") }

        var credentials: [StoredCredential] = []
        var seen = Set<[UInt8]>()
        for (index, entry) in entries.enumerated() {
            let credential: StoredCredential
            do {
                credential = try decodeCredential(entry)
            } catch {
                throw corrupted("credentials[\(index)]: \(error.reason)")
            }
            guard seen.insert(credential.id).inserted else { throw corrupted("credentials[\(index)]: duplicate credential ID") }
            credentials.append(credential)
        }
        return credentials
    }

    private static func decodeCredential(_ value: JSONValue) throws(PasskeyError) -> StoredCredential {
        func bad(_ member: String, _ problem: String) -> PasskeyError {
            PasskeyError(.storageCorrupted, stage: .storage, "member \"\(member)\" \(problem)")
        }
        guard let o = value.objectValue else { throw PasskeyError(.storageCorrupted, stage: .storage, "not a JSON object") }
        func string(_ name: String) throws(PasskeyError) -> String {
            guard let s = o[name]?.stringValue else { throw bad(name, "is missing or not a string") }
            return s
        }
        func bytes(_ name: String, _ range: ClosedRange<Int>) throws(PasskeyError) -> [UInt8] {
            guard let b = Base64URL.decode(try string(name)) else { throw bad(name, "is not base64url") }
            guard range.contains(b.count) else { throw bad(name, "is \(b.count) bytes, expected \(range.lowerBound)–\(range.upperBound)") }
            return b
        }
        func bool(_ name: String) throws(PasskeyError) -> Bool {
            guard let b = o[name]?.boolValue else { throw bad(name, "is missing or not a boolean") }
            return b
        }
        func date(_ name: String) throws(PasskeyError) -> Date? {
            guard let v = o[name], !v.isNull else { return nil }
            guard let ms = v.intValue else { throw bad(name, "is not an integer number of milliseconds") }
            return Date(timeIntervalSince1970: Double(ms) / 1000)
        }

        let id = try bytes("id", 16...1023)
        let rpID = try string("rpId")
        guard !rpID.isEmpty else { throw bad("rpId", "is empty") }
        let userHandle = try bytes("userHandle", 1...64)
        guard let alg = o["algorithm"]?.intValue, let algorithm = SigningAlgorithm(coseAlgorithm: .init(rawValue: alg)) else {
            throw bad("algorithm", "is not a supported COSE algorithm (-7 or -8)")
        }
        let privateKey = try bytes("privateKey", CredentialKey.rawLength...CredentialKey.rawLength)
        _ = try CredentialKey(algorithm: algorithm, rawPrivateKey: privateKey)  // a key that cannot sign is corruption now, not at sign-in
        guard let count = o["signCount"]?.intValue, let signCount = UInt32(exactly: count) else {
            throw bad("signCount", "is not an integer between 0 and 2^32-1")
        }
        guard let createdAt = try date("createdAt") else { throw bad("createdAt", "is missing") }
        let prfSecret = o["prfSecret"] == nil ? nil : try bytes("prfSecret", PRFExtension.secretLength...PRFExtension.secretLength)
        let largeBlobSupported = o["largeBlobSupported"] == nil ? false : try bool("largeBlobSupported")
        let largeBlob = o["largeBlob"] == nil ? nil : try bytes("largeBlob", 0...StoredCredential.largeBlobLimit)
        if largeBlob != nil, !largeBlobSupported { throw bad("largeBlob", "is present on a credential without large-blob support") }
        return StoredCredential(
            id: id, rpID: rpID, userHandle: userHandle, userName: try string("userName"),
            userDisplayName: try string("userDisplayName"), algorithm: algorithm, privateKey: privateKey, signCount: signCount,
            backupEligible: try bool("backupEligible"), backupState: try bool("backupState"), createdAt: createdAt,
            lastUsedAt: try date("lastUsedAt"), prfSecret: prfSecret, largeBlobSupported: largeBlobSupported, largeBlob: largeBlob)
    }

    private static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
