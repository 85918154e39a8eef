import PasskeyCore
import SwiftASN1

/// The parts of the Android Keystore key description extension (OID 1.3.6.1.4.1.11129.2.1.17) that WebAuthn L3 §8.4
/// checks.
///
/// ```
/// KeyDescription ::= SEQUENCE {
///     attestationVersion INTEGER, attestationSecurityLevel ENUMERATED,
///     keyMintVersion INTEGER, keyMintSecurityLevel ENUMERATED,
///     attestationChallenge OCTET STRING, uniqueId OCTET STRING,
///     softwareEnforced AuthorizationList, hardwareEnforced AuthorizationList, ... }
/// AuthorizationList ::= SEQUENCE { purpose [1] EXPLICIT SET OF INTEGER OPTIONAL, ...,
///     allApplications [600] EXPLICIT NULL OPTIONAL, ..., origin [702] EXPLICIT INTEGER OPTIONAL, ... }
/// ```
/// Only the fields WebAuthn needs are decoded; the rest of each authorization list is skipped by tag, so tags added by
/// newer Keystore versions do not break parsing.
struct KeyDescription: Sendable {
    /// An authorization list, reduced to what §8.4 reads.
    struct AuthorizationList: Sendable {
        var purposes: [Int] = []
        var origin: Int?
        var allApplications = false
    }

    let attestationVersion: Int
    let attestationChallenge: [UInt8]
    let softwareEnforced: AuthorizationList
    let teeEnforced: AuthorizationList

    // Positions of the KeyDescription members.
    static let attestationVersionIndex = 0
    static let attestationChallengeIndex = 4
    static let softwareEnforcedIndex = 6
    static let teeEnforcedIndex = 7
    static let minimumMemberCount = 8

    // AuthorizationList tags (Android Keymaster/KeyMint Tag numbers).
    static let purposeTag = ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)
    static let allApplicationsTag = ASN1Identifier(tagWithNumber: 600, tagClass: .contextSpecific)
    static let originTag = ASN1Identifier(tagWithNumber: 702, tagClass: .contextSpecific)

    init(extensionValue: ArraySlice<UInt8>) throws(WebAuthnError) {
        let malformed = WebAuthnError(.attestationInvalid, "android-key key description extension is malformed")
        do {
            let root = try DER.parse(extensionValue)
            guard root.identifier == .sequence, case .constructed(let children) = root.content else { throw malformed }
            let members = Array(children)
            guard members.count >= Self.minimumMemberCount else { throw malformed }
            attestationVersion = try Int(derEncoded: members[Self.attestationVersionIndex])
            attestationChallenge = Array(try ASN1OctetString(derEncoded: members[Self.attestationChallengeIndex]).bytes)
            softwareEnforced = try Self.authorizationList(members[Self.softwareEnforcedIndex])
            teeEnforced = try Self.authorizationList(members[Self.teeEnforcedIndex])
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw malformed
        }
    }

    static func authorizationList(_ node: ASN1Node) throws -> AuthorizationList {
        guard node.identifier == .sequence, case .constructed(let entries) = node.content else {
            throw ASN1Error.unexpectedFieldType(node.identifier)
        }
        var list = AuthorizationList()
        for entry in entries {
            switch entry.identifier {
            case purposeTag:
                let set = try explicitContent(entry)
                guard set.identifier == .set, case .constructed(let values) = set.content else {
                    throw ASN1Error.unexpectedFieldType(set.identifier)
                }
                for value in values { list.purposes.append(try Int(derEncoded: value)) }
            case originTag:
                list.origin = try Int(derEncoded: try explicitContent(entry))
            case allApplicationsTag:
                list.allApplications = true
            default:
                continue
            }
        }
        return list
    }

    /// The single node inside an EXPLICIT tag.
    static func explicitContent(_ node: ASN1Node) throws -> ASN1Node {
        guard case .constructed(let inner) = node.content else { throw ASN1Error.unexpectedFieldType(node.identifier) }
        var iterator = inner.makeIterator()
        guard let value = iterator.next(), iterator.next() == nil else { throw ASN1Error.unexpectedFieldType(node.identifier) }
        return value
    }
}
