public import PasskeyWire

/// The device an app describes for a rollout decision; any member may be missing.
public struct ClientReportJSON: JSONRepresentable, Hashable {
    /// `iOS`, `macOS`, `android`, `windows`…
    public var platform: String?
    public var osVersion: String?
    public var platformAuthenticator: Bool?
    public var conditionalMediation: Bool?
    public var conditionalCreate: Bool?

    public init(
        platform: String? = nil, osVersion: String? = nil, platformAuthenticator: Bool? = nil, conditionalMediation: Bool? = nil,
        conditionalCreate: Bool? = nil
    ) {
        self.platform = platform
        self.osVersion = osVersion
        self.platformAuthenticator = platformAuthenticator
        self.conditionalMediation = conditionalMediation
        self.conditionalCreate = conditionalCreate
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        platform = try reader.optionalString("platform")
        osVersion = try reader.optionalString("osVersion")
        platformAuthenticator = try reader.optionalBool("platformAuthenticator")
        conditionalMediation = try reader.optionalBool("conditionalMediation")
        conditionalCreate = try reader.optionalBool("conditionalCreate")
    }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("platform", platform)
        builder.set("osVersion", osVersion)
        builder.set("platformAuthenticator", platformAuthenticator)
        builder.set("conditionalMediation", conditionalMediation)
        builder.set("conditionalCreate", conditionalCreate)
        return builder.value
    }
}
