import Foundation
import HTTPTypes
import Hummingbird
import PasskeyAPI
import PasskeyRelyingParty
import PasskeyStorage
import PasskeyWire

/// The admin ceremonies: set-up with an invite, sign-in, the fresh passkey check, sign-out. Each is recorded as an
/// `admin.*` event, refusals included.
extension DashboardController {
    func addCeremonyRoutes(to router: some RouterMethods<Context>, signedIn: some RouterMethods<Context>) {
        router.get("dashboard/login") { _, _ in Self.html(DashboardPages.signIn()) }
        router.get("dashboard/setup", use: setupPage)
        router.post("dashboard/api/setup/options", use: setupOptions)
        router.post("dashboard/api/setup/verify", use: setupVerify)
        router.post("dashboard/api/login/options", use: signInOptions)
        router.post("dashboard/api/login/verify", use: signInVerify)
        signedIn.post("dashboard/api/recheck/options", use: recheckOptions)
        signedIn.post("dashboard/api/recheck/verify", use: recheckVerify)
        signedIn.post("dashboard/api/logout", use: signOut)
    }

    func signedIn(_ admin: AdminRecord, _ secret: String, _ request: Request) -> Response {
        var response = Response.json(AdminSessionAnswer(admin: admin.name))
        response.headers[.setCookie] = cookie(secret, maxAge: Int(configuration.dashboard.sessionAbsoluteTimeout), for: request)
        return response
    }

    /// `GET /dashboard/setup`.
    func setupPage(_ request: Request, context: Context) async -> Response {
        let token = request.formQuery["token"] ?? ""
        let valid = (try? await admins.checkInvite(token)) != nil
        return Self.html(DashboardPages.setup(token: token, valid: valid), status: valid ? .ok : .notFound)
    }

    /// `POST /dashboard/api/setup/options`.
    func setupOptions(_ request: Request, context: Context) async -> Response {
        var request = request
        return await respond { () throws(APIError) in
            try await throttle.enforce(request, context)
            let body = try await request.decode(AdminSetupRequest.self, limit: bodyLimit)
            return try await admins.setupOptions(token: body.token, name: body.name)
        }
    }

    /// `POST /dashboard/api/setup/verify`.
    func setupVerify(_ request: Request, context: Context) async -> Response {
        var request = request
        do throws(APIError) {
            let body = try await request.decode(VerifyRegistrationRequest.self, limit: bodyLimit)
            let (admin, secret) = try await admins.setupVerify(challengeKey: try answering { () throws(WireError) in try body.requiredChallengeKey() }, credential: body.cred)
            await recordAdmin("setup", request, context, principal: nil, detail: "admin \(admin.name) added")
            return signedIn(admin, secret, request)
        } catch {
            await recordAdmin("setup", request, context, principal: nil, error: error)
            return Response.error(error)
        }
    }

    /// `POST /dashboard/api/login/options`.
    func signInOptions(_ request: Request, context: Context) async -> Response {
        await respond { () throws(APIError) in
            try await throttle.enforce(request, context)
            return try await admins.signInOptions()
        }
    }

    /// `POST /dashboard/api/login/verify`.
    func signInVerify(_ request: Request, context: Context) async -> Response {
        var request = request
        do throws(APIError) {
            let body = try await request.decode(VerifyAuthenticationRequest.self, limit: bodyLimit)
            let (admin, secret) = try await admins.signInVerify(challengeKey: try answering { () throws(WireError) in try body.requiredChallengeKey() }, credential: body.cred)
            guard let secret else { throw APIError.challengeInvalid }
            await recordAdmin("sign_in", request, context, principal: nil, detail: "admin \(admin.name) signed in")
            return signedIn(admin, secret, request)
        } catch {
            await recordAdmin("sign_in", request, context, principal: nil, error: error)
            return Response.error(error)
        }
    }

    /// `POST /dashboard/api/recheck/options`.
    func recheckOptions(_ request: Request, context: Context) async -> Response {
        await data(request, context) { principal throws(APIError) in try await admins.signInOptions(recheck: principal) }
    }

    /// `POST /dashboard/api/recheck/verify`.
    func recheckVerify(_ request: Request, context: Context) async -> Response {
        var request = request
        return await data(request, context) { principal throws(APIError) in
            guard !principal.isBreakGlass else { return RecheckAnswer() }
            let body = try await request.decode(VerifyAuthenticationRequest.self, limit: bodyLimit)
            _ = try await admins.signInVerify(challengeKey: try answering { () throws(WireError) in try body.requiredChallengeKey() }, credential: body.cred, recheck: principal)
            await recordAdmin("recheck", request, context, principal: principal, detail: "passkey check")
            return RecheckAnswer()
        }
    }

    /// `POST /dashboard/api/logout`.
    func signOut(_ request: Request, context: Context) async -> Response {
        var response = await data(request, context) { principal throws(APIError) in
            try await admins.signOut(principal)
            await recordAdmin("sign_out", request, context, principal: principal)
            // Its live streams here end now (after the sign-out's own event when it was published here directly).
            if let session = principal.sessionHash { await broadcaster.end(session: session) }
            return SignedOutAnswer()
        }
        if response.status == .ok { response.headers[.setCookie] = cookie("", maxAge: 0, for: request) }
        return response
    }
}
