public import PasskeyWire

/// `/.well-known/apple-app-site-association`: the apps that may use passkeys for this RP ID (Apple's
/// `webcredentials` service; an app lists `webcredentials:<domain>` in its Associated Domains).
public struct AppleAppSiteAssociation: JSONRepresentable, Hashable {
    /// `TEAMID.bundle.id` of each app.
    public var webcredentialsApps: [String]

    public init(webcredentialsApps: [String]) { self.webcredentialsApps = webcredentialsApps }

    public init(json: JSONValue) throws(WireError) {
        let webcredentials = try JSONObjectReader(json).required("webcredentials", as: Webcredentials.self)
        webcredentialsApps = webcredentials.apps
    }

    public var json: JSONValue { ["webcredentials": Webcredentials(apps: webcredentialsApps).json] }

    struct Webcredentials: JSONRepresentable, Hashable {
        var apps: [String]
        init(apps: [String]) { self.apps = apps }
        init(json: JSONValue) throws(WireError) { apps = try JSONObjectReader(json).strings("apps") }
        var json: JSONValue { ["apps": .array(apps.map(JSONValue.string))] }
    }
}
