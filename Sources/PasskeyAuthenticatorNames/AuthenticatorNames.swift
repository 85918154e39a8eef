import Foundation
import PasskeyWire

/// Display names of authenticators and passkey providers by AAGUID ("iCloud Keychain", "YubiKey 5 Series"…), for
/// account screens and diagnostics.
///
/// The list is the community-maintained passkey-provider AAGUID list merged with FIDO metadata names (see
/// `Resources/README.md`). It names; it does not vouch: never base a trust decision on it.
public struct AuthenticatorNames: Sendable {
    public struct Entry: Sendable, Hashable {
        public let name: String
        /// `mds` (from FIDO metadata) or `community`.
        public let source: String
    }

    let entries: [String: Entry]

    /// The bundled list (empty if the resource cannot be read, which a test rules out).
    public static let bundled = AuthenticatorNames(resource: Bundle.module.url(forResource: "aaguids", withExtension: "json"))

    init(resource: URL?) {
        var entries: [String: Entry] = [:]
        if let resource, let data = try? Data(contentsOf: resource), let root = try? JSONValue.parse([UInt8](data)).objectValue,
            let list = root["aaguids"]?.objectValue
        {
            for member in list {
                guard let object = member.value.objectValue, let name = object["name"]?.stringValue else { continue }
                entries[member.name.lowercased()] = Entry(name: name, source: object["origin"]?.stringValue ?? "unknown")
            }
        }
        self.entries = entries
    }

    /// The name for an AAGUID in canonical form (`08987058-cadc-4b81-b6e1-30de50dcbe96`), any case.
    public func name(for aaguid: String) -> String? { entries[aaguid.lowercased()]?.name }

    public func entry(for aaguid: String) -> Entry? { entries[aaguid.lowercased()] }

    public var count: Int { entries.count }
}
