import Foundation
import PasskeyRelyingParty
import PasskeyStorage

/// The OpenID Provider's pages, rendered on the server: the sign-in page, the form that posts a response
/// (`response_mode=form_post`), the error page and the signed-out page. Every value goes through
/// ``DashboardPages/escape(_:)``; the scripts and style come from `/webauthn-json.js`, `/oidc/oidc.js` and `/oidc/oidc.css` only.
enum OpenIDPages {
    static func escape(_ text: String) -> String { DashboardPages.escape(text) }

    static func document(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer"><title>\(escape(title))</title>
        <link rel="stylesheet" href="/oidc/oidc.css"><link rel="icon" href="/favicon.svg"></head>
        <body>\(body)<script src="/webauthn-json.js"></script><script src="/oidc/oidc.js"></script></body></html>
        """
    }

    /// The sign-in page for a pending authorization request. With `session`, the person is signed in already and a
    /// third-party client needs only their consent.
    /// `recoveryURL`: where a person who lost their device goes (`--oidc-recovery-url`).
    static func signIn(
        client: OpenIDClientRecord, sealed: String, request: AuthorizationRequest, session: UserRecord?, rpName: String, recoveryURL: String?
    ) -> String {
        let name = escape(client.name)
        var body = #"<main id="oidc" data-request="\#(escape(sealed))""#
        if let session {
            body += #" data-autofill="off"><h1>Continue to \#(name)</h1>"#
            body += "<p>\(name) is not run by \(escape(rpName)). It will learn your account name"
            body += request.scopes.contains("email") ? " and email address" : ""
            body += ".</p>"
            body += "<p class=\"muted\">Signed in as <strong>\(escape(session.entityName))</strong></p>"
            body += #"<button id="consent" type="button">Continue as \#(escape(session.entityName))</button>"#
            body += #"<button id="decline" type="button" class="secondary">Cancel</button>"#
        } else {
            body += #"><h1>Sign in to \#(name)</h1><p class="muted">with your passkey for \#(escape(rpName))</p>"#
            body += #"<input id="username" name="username" autocomplete="username webauthn" placeholder="Username (optional)" value="\#(escape(request.loginHint ?? ""))">"#
            body += #"<button id="passkey" type="button" data-passkey="1">Sign in with a passkey</button>"#
            if client.thirdParty {
                body += "<p class=\"muted\">\(name) is not run by \(escape(rpName)); signing in lets it know your account name.</p>"
                body += #"<button id="decline" type="button" class="secondary">Cancel</button>"#
            }
            if let recoveryURL {
                body += "<p class=\"muted\"><a id=\"recovery\" href=\"\(escape(recoveryURL))\">Lost the device with your passkey?</a> A recovery link adds a passkey on this device.</p>"
            } else {
                body += "<p class=\"muted\">Lost the device with your passkey? Ask \(escape(rpName)) for a recovery link: it adds a passkey on this device.</p>"
            }
        }
        body += #"<p id="status" role="status" aria-live="polite"></p></main>"#
        return document(title: "Sign in to \(client.name)", body: body)
    }

    /// The response posted to the client's redirect URI (OAuth 2.0 Form Post Response Mode), submitted by the script,
    /// or by the button without it.
    static func formPost(_ response: AuthorizationResponse) -> String {
        let (action, parameters) = (response.redirectURI, response.parameters)
        var body = #"<main id="oidc" data-autofill="off"><h1>Returning to the application…</h1>"#
        body += #"<form id="form-post" method="post" action="\#(escape(action))">"#
        for (name, value) in parameters { body += #"<input type="hidden" name="\#(escape(name))" value="\#(escape(value))">"# }
        body += #"<noscript><button type="submit">Continue</button></noscript></form></main>"#
        return document(title: "Returning to the application", body: body)
    }

    static func error(_ code: String, _ description: String) -> String {
        let body = #"<main id="oidc" data-autofill="off"><h1>This sign-in cannot go on</h1><p>\#(escape(description))</p><p class="muted">\#(escape(code))</p></main>"#
        return document(title: "Sign-in error", body: body)
    }

    static func signedOut() -> String {
        document(title: "Signed out", body: #"<main id="oidc" data-autofill="off"><h1>You are signed out</h1><p>You can close this page.</p></main>"#)
    }
}
