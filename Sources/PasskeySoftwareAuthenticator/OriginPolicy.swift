/// Which origin the software authenticator writes into `clientDataJSON`, that is, which kind of caller it pretends
/// to be. The relying party must list the same origin, so this is how a test proves the server accepts each caller.
public enum OriginPolicy: Sendable, Hashable {
    /// A website at this exact origin, for example `https://www.example.com`. The RP ID must be the origin's host or
    /// a parent domain of it, as browsers require.
    case web(String)
    /// A native Apple app: `https://<rpId>`, which is what iOS and macOS report for app ceremonies (even when the
    /// website lives on a subdomain). Association is the app's entitlement, so no domain check is made here.
    case appleApp
    /// A native Android app: origin `android:apk-key-hash:<apkKeyHash>`, where `apkKeyHash` is the base64url SHA-256
    /// of the app's signing certificate; `packageName` is added to client data as Android does.
    case android(apkKeyHash: String, packageName: String?)

    /// The origin for a ceremony scoped to `rpID`.
    public func origin(rpID: String) -> String {
        switch self {
        case .web(let origin): origin
        case .appleApp: "https://\(rpID)"
        case .android(let hash, _): "android:apk-key-hash:\(hash)"
        }
    }

    /// The host of a web origin (`https://www.example.com:8443` → `www.example.com`), or `nil` for app origins.
    var webHost: String? {
        guard case .web(let origin) = self else { return nil }
        var rest = Substring(origin)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
        let end = rest.firstIndex { $0 == ":" || $0 == "/" } ?? rest.endIndex
        let host = rest[..<end].lowercased()
        return host.isEmpty ? nil : host
    }

    var androidPackageName: String? {
        if case .android(_, let packageName) = self { return packageName }
        return nil
    }
}
