public import PasskeyWire

/// One statement of `/.well-known/assetlinks.json` (Digital Asset Links): an Android app that may use this site's
/// passkeys. The document is an array of them.
public struct AssetLinkStatement: JSONRepresentable, Hashable {
    /// The relations passkeys need: handling the site's links, and sharing its sign-in credentials.
    public static let passkeyRelations = ["delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds"]

    public var relation: [String]
    public var packageName: String
    /// SHA-256 fingerprints of the app's signing certificates, as upper-case hex pairs separated by colons.
    public var sha256CertFingerprints: [String]

    public init(relation: [String] = passkeyRelations, packageName: String, sha256CertFingerprints: [String]) {
        self.relation = relation
        self.packageName = packageName
        self.sha256CertFingerprints = sha256CertFingerprints
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        relation = try reader.strings("relation")
        guard let target = try reader.optionalObject("target") else {
            throw WireError(.fieldMissing, field: "target", "required member is missing")
        }
        let targetReader = try JSONObjectReader(.object(target), path: "target")
        guard try targetReader.string("namespace") == "android_app" else {
            throw WireError(.fieldInvalid, field: "target.namespace", "not an Android app")
        }
        packageName = try targetReader.string("package_name")
        sha256CertFingerprints = try targetReader.strings("sha256_cert_fingerprints")
    }

    public var json: JSONValue {
        [
            "relation": .array(relation.map(JSONValue.string)),
            "target": [
                "namespace": "android_app", "package_name": .string(packageName),
                "sha256_cert_fingerprints": .array(sha256CertFingerprints.map(JSONValue.string)),
            ],
        ]
    }
}
