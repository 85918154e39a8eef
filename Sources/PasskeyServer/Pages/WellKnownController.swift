public import Hummingbird
public import PasskeyAPI
import PasskeyWire
import NIOCore

/// The files iOS and Android apps (and browsers, for related origins) fetch from the RP ID's domain.
/// Served as `application/json`, never redirected.
public struct WellKnownController<Context: RequestContext>: Sendable {
    let configuration: ServerConfiguration

    public init(configuration: ServerConfiguration) { self.configuration = configuration }

    /// `apple-app-site-association`: the `webcredentials` apps allowed to use passkeys for this RP ID.
    public var appleAppSiteAssociation: AppleAppSiteAssociation { AppleAppSiteAssociation(webcredentialsApps: configuration.appleAppIDs) }

    /// `assetlinks.json`: Android apps allowed to share credentials with this site.
    public var assetLinks: AssetLinks {
        AssetLinks(
            statements: configuration.androidApps.map { app in
                AssetLinkStatement(packageName: app.packageName, sha256CertFingerprints: app.sha256Fingerprints.map { $0.uppercased() })
            })
    }

    /// `webauthn`: related origins (WebAuthn L3 §5.11.1) that may use this RP ID.
    public var relatedOrigins: RelatedOrigins { RelatedOrigins(origins: configuration.webOrigins) }

    /// `passkey-endpoints`: where passkey managers send a person to create or manage passkeys. An empty object still
    /// says the site supports passkeys.
    public var passkeyEndpoints: PasskeyEndpoints { configuration.passkeyEndpoints }

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
