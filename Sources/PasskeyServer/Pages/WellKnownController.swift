public import Hummingbird
public import PasskeyWire
import NIOCore

/// The files iOS and Android apps (and browsers, for related origins) fetch from the RP ID's domain.
/// Served as `application/json`, never redirected.
public struct WellKnownController<Context: RequestContext>: Sendable {
    let configuration: ServerConfiguration

    public init(configuration: ServerConfiguration) { self.configuration = configuration }

    /// `apple-app-site-association`: the `webcredentials` apps allowed to use passkeys for this RP ID.
    public var appleAppSiteAssociation: JSONValue {
        .object(["webcredentials": .object(["apps": .array(configuration.appleAppIDs.map(JSONValue.string))])])
    }

    /// `assetlinks.json`: Android apps allowed to share credentials with this site.
    public var assetLinks: JSONValue {
        .array(configuration.androidApps.map { app in
            .object([
                "relation": ["delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds"],
                "target": .object([
                    "namespace": "android_app", "package_name": .string(app.packageName),
                    "sha256_cert_fingerprints": .array(app.sha256Fingerprints.map { .string($0.uppercased()) }),
                ]),
            ])
        })
    }

    /// `webauthn`: related origins (WebAuthn L3 §5.11.1) that may use this RP ID.
    public var relatedOrigins: JSONValue {
        .object(["origins": .array((configuration.webOrigins).map(JSONValue.string))])
    }

    /// `passkey-endpoints`: where passkey managers send a person to create or manage passkeys. An empty object still
    /// says the site supports passkeys.
    public var passkeyEndpoints: JSONValue {
        var document = JSONObject()
        for (member, url) in configuration.passkeyEndpoints { document[member] = .string(url) }
        return .object(document)
    }

    public func addRoutes(to router: Router<Context>) {
        let aasa = appleAppSiteAssociation
        let links = assetLinks
        let related = relatedOrigins
        let endpoints = passkeyEndpoints
        router.get(".well-known/apple-app-site-association") { _, _ in Response.json(aasa) }
        router.get("apple-app-site-association") { _, _ in Response.json(aasa) }
        router.get(".well-known/assetlinks.json") { _, _ in Response.json(links) }
        router.get(".well-known/webauthn") { _, _ in Response.json(related) }
        router.get(".well-known/passkey-endpoints") { _, _ in Response.json(endpoints) }
    }
}
