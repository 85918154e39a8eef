public import Hummingbird
import Foundation
import NIOCore
import PasskeyWire

/// The demo page at `/` (plain HTML, CSS and JavaScript from the bundle, no build step, nothing from a CDN) and the
/// OpenAPI document at `/openapi.json`.
public struct DemoPageController<Context: RequestContext>: Sendable {
    struct Asset: Sendable {
        let bytes: [UInt8]
        let contentType: String
    }

    let assets: [String: Asset]

    /// Loads the page's files once. `servers`: this server's address, which the OpenAPI document served names in its
    /// `servers` (the checked-in file names the default, `http://localhost:8080`), so that tools reading it call this
    /// server rather than the website or an app's origin.
    public init(servers: [String] = []) {
        var assets: [String: Asset] = [:]
        for (name, type) in [
            ("index.html", "text/html; charset=utf-8"), ("demo.js", "text/javascript; charset=utf-8"), ("demo.css", "text/css; charset=utf-8"),
            ("webauthn-json.js", "text/javascript; charset=utf-8"),
            ("openapi.json", "application/json; charset=utf-8"), ("favicon.svg", "image/svg+xml"),
        ] {
            if let url = Bundle.module.url(forResource: "Public/" + name, withExtension: nil) ?? Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Public"),
                let data = try? Data(contentsOf: url)
            {
                var bytes = [UInt8](data)
                if name == "openapi.json", !servers.isEmpty, case .object(var document)? = try? JSONValue.parse(bytes) {
                    document["servers"] = .array(servers.map { .object(["url": .string($0)]) })
                    bytes = JSONValue.object(document).serializedBytes
                }
                assets[name] = Asset(bytes: bytes, contentType: type)
            }
        }
        self.assets = assets
    }

    public func addRoutes(to router: Router<Context>) {
        let assets = assets
        // The icon serves the dashboard's pages too (they name it); without one, browsers asked for /favicon.ico and
        // logged its 404 on every page.
        for (path, name) in [
            ("/", "index.html"), ("/demo.js", "demo.js"), ("/demo.css", "demo.css"), ("/openapi.json", "openapi.json"), ("/favicon.svg", "favicon.svg"),
            ("/webauthn-json.js", "webauthn-json.js"),
        ] {
            router.get(RouterPath(path)) { _, _ in
                guard let asset = assets[name] else {
                    return Response.error(APIError(.notFound, "The demo page is missing from this build."))
                }
                var response = Response(
                    status: .ok, headers: [.contentType: asset.contentType, .cacheControl: "no-cache"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
                // Scripts and styles from this origin only; API calls to this origin only.
                response.headers[.contentSecurityPolicy] =
                    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
                return response
            }
        }
    }
}
