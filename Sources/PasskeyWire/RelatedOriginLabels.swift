/// The "labels" a browser counts when it reads a related-origins file (`/.well-known/webauthn`, WebAuthn L3 §5.11.1):
/// each origin's registrable domain (eTLD+1) without its public suffix, `example` for `https://shop.example.co.uk`.
/// Clients must support at least ``minimumHonoured`` distinct labels, and are asked to stop there: an origin whose
/// label is not among the first five of the file is ignored (Firefox does exactly that), so a file that needs more
/// works in some browsers only.
///
/// Without the Public Suffix List, the suffix is estimated: the last label, or the last two when they form a common
/// two-part suffix (`co.uk`, `com.au`, …). Good enough to warn; not a substitute for the list.
public enum RelatedOriginLabels {
    /// The number of distinct labels clients must support, and the recommended maximum (WebAuthn L3 §5.11.1).
    public static let minimumHonoured = 5

    /// The origins of `origins` (a related-origins file, in its order) whose label is not among the first
    /// ``minimumHonoured`` distinct ones: what a client that stops at five ignores.
    public static func beyondHonoured(_ origins: [String]) -> [String] {
        let honoured = Set(labels(of: origins).prefix(minimumHonoured))
        return origins.filter { origin in label(ofOrigin: origin).map { !honoured.contains($0) } ?? false }
    }

    /// Two-part public suffixes common enough to matter for the estimate: country second levels, and the hosting
    /// platforms whose customers each get a site of their own (`shop.github.io` and `blog.github.io` are two sites).
    static let twoPartSuffixes: Set<String> = [
        "github.io", "gitlab.io", "vercel.app", "netlify.app", "pages.dev", "workers.dev", "web.app", "firebaseapp.com",
        "herokuapp.com", "azurewebsites.net", "azurestaticapps.net", "cloudfront.net", "appspot.com", "blogspot.com",
        "fly.dev", "onrender.com", "glitch.me", "ngrok.io", "ngrok.app", "repl.co",
        "co.uk", "org.uk", "ac.uk", "gov.uk", "me.uk", "com.au", "net.au", "org.au", "co.nz", "org.nz", "co.jp", "ne.jp", "or.jp",
        "com.br", "com.cn", "com.mx", "com.tr", "com.tw", "com.sg", "com.hk", "co.in", "co.za", "co.kr", "com.ar", "co.il",
    ]

    /// The estimated label of a web origin (`scheme://host[:port]`), or nil for an IP address, `localhost` or
    /// something that is not a web origin.
    public static func label(ofOrigin origin: String) -> String? {
        let scheme = ["https://", "http://"].first { origin.hasPrefix($0) }
        guard let scheme else { return nil }
        let host = origin.dropFirst(scheme.count).prefix { $0 != ":" && $0 != "/" }.lowercased()
        let parts = host.split(separator: ".").map(String.init)
        guard parts.count >= 2, !parts.allSatisfy({ (part: String) in part.allSatisfy(\.isNumber) }) else { return nil }
        let lastTwo = parts.suffix(2).joined(separator: ".")
        if twoPartSuffixes.contains(lastTwo) { return parts.count >= 3 ? parts[parts.count - 3] : nil }
        return parts[parts.count - 2]
    }

    /// The distinct labels of `origins`, in the order they first appear.
    public static func labels(of origins: [String]) -> [String] {
        var seen = Set<String>()
        return origins.compactMap(label(ofOrigin:)).filter { seen.insert($0).inserted }
    }
}
