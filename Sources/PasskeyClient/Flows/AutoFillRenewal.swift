import PasskeyAPI
import PasskeyWire

/// Sign-in options, and the assertion the authenticator made for them.
struct SignedRequest: Sendable {
    /// The options' `challengeKey`, sent back with the assertion.
    var challengeKey: String?
    var options: PublicKeyCredentialRequestOptionsJSON
    var assertion: AuthenticationResponseJSON
}

/// Keeps an AutoFill request (`mediation` `.conditional`) signable: it waits for as long as the sign-in screen stays
/// open, far longer than the server keeps a challenge (60 s by default). Without renewal, a passkey picked after that
/// would pass Face ID only to be refused with `challenge_invalid`, and the person would have to pick it again.
///
/// Shortly before the options expire (5 s before the server's `timeout`, or a tenth of a shorter one), the waiting
/// request is cancelled and made again with new options, out of sight. A person who picks a passkey in the very
/// second of the renewal sees the sheet close and the suggestion come back (the platform reports the cancellation,
/// not the pick), and picks again. Options fetched for a renewal that fail for the network or a busy server are
/// fetched again, waiting longer each time, instead of ending AutoFill; only cancelling the task ends it.
enum AutoFillRenewal {
    /// Options with a `timeout` under this are not renewed: a value that short is not a lifetime in milliseconds
    /// (a server sending seconds, for example), and renewing on it would fetch options in a tight loop.
    static let shortestRenewableLifetime: Duration = .seconds(1)

    /// How long after its options arrive an AutoFill request is renewed; nil: not renewed.
    static func renewal(timeoutMilliseconds: Int) -> Duration? {
        let lifetime = Duration.milliseconds(timeoutMilliseconds)
        guard lifetime >= shortestRenewableLifetime else { return nil }
        return lifetime - min(.seconds(5), lifetime / 10)
    }

    /// Options (`first`, issued `firstAge` ago, or else from `fetch`, with `extensions` added) and the authenticator's
    /// assertion for them; for AutoFill, renewed with options from `fetch` as often as needed.
    static func sign(
        first: AuthenticationOptionsAnswer? = nil, firstAge: Duration = .zero, mediation: AssertionMediation, extensions: JSONObject = [:],
        authenticator: any Authenticator, isolation: isolated (any Actor)? = #isolation, fetch: () async throws(PasskeyError) -> JSONObject
    ) async throws(PasskeyError) -> SignedRequest {
        var pending = first
        var renewals = 0
        while true {
            let decoded: (options: PublicKeyCredentialRequestOptionsJSON, challengeKey: String?)
            var age = Duration.zero
            if let given = pending {
                decoded = (given.options, given.challengeKey)
                age = firstAge
                pending = nil
            } else if renewals == 0 {
                decoded = try PasskeyAuthClient.requestOptions(try await fetch())
            } else {
                decoded = try PasskeyAuthClient.requestOptions(try await fetchForRenewal(fetch))
            }
            var options = decoded.options
            // The app's own extension inputs (`prf`) join the server's.
            if !extensions.isEmpty {
                var merged = options.extensions ?? [:]
                for (name, input) in extensions { merged[name] = input }
                options.extensions = merged
            }
            if Task.isCancelled { throw .cancelled(stage: .authenticator, "the task was cancelled before the authenticator step") }
            if let assertion = try await assertion(AssertionRequest(options: options, mediation: mediation), from: authenticator, optionsAge: age) {
                return SignedRequest(challengeKey: decoded.challengeKey, options: options, assertion: assertion)
            }
            renewals += 1
        }
    }

    /// `fetch` for a renewal: a network failure, a timeout, or a server answering 429 or 5xx is tried again after 1, 2,
    /// 4 … up to 30 seconds, until it works or the task is cancelled. Other refusals end the request.
    static func fetchForRenewal(
        isolation: isolated (any Actor)? = #isolation, _ fetch: () async throws(PasskeyError) -> JSONObject
    ) async throws(PasskeyError) -> JSONObject {
        var wait = Duration.seconds(1)
        while true {
            do throws(PasskeyError) {
                return try await fetch()
            } catch {
                let status = error.server?.httpStatus ?? 0
                guard error.code == .network || error.code == .timeout || status == 429 || status >= 500 else { throw error }
            }
            do { try await Task.sleep(for: wait) } catch {
                throw .cancelled(stage: .options, "the task was cancelled while new AutoFill options were awaited")
            }
            wait = min(wait * 2, .seconds(30))
        }
    }

    /// The authenticator's assertion for `request`; nil when an AutoFill request was still waiting for the person as
    /// its options were about to expire, and was cancelled so that the caller fetches new ones. `optionsAge` is how
    /// long ago the server issued the options (`PasskeyConnect` fetches them before the screen shows): options already
    /// too old are not shown at all.
    static func assertion(_ request: AssertionRequest, from authenticator: any Authenticator, optionsAge: Duration = .zero)
        async throws(PasskeyError) -> AuthenticationResponseJSON?
    {
        guard request.mediation == .conditional, let timeout = request.options.timeout, let lifetime = renewal(timeoutMilliseconds: timeout)
        else { return try await authenticator.getAssertion(request) }
        let renewAfter = lifetime - optionsAge
        guard renewAfter > .zero else { return nil }
        enum Outcome: Sendable {
            case finished(Result<AuthenticationResponseJSON, PasskeyError>)
            case renew
        }
        let outcome = await withTaskGroup(of: Outcome.self) { group -> Outcome in
            group.addTask {
                do throws(PasskeyError) { return .finished(.success(try await authenticator.getAssertion(request))) } catch {
                    return .finished(.failure(error))
                }
            }
            group.addTask {
                try? await Task.sleep(for: renewAfter)
                return .renew
            }
            let first = await group.next() ?? .renew
            group.cancelAll()
            guard case .renew = first else { return first }
            // The request stops once cancelled; an answer that arrived at the same moment is kept, and so is an error
            // other than the cancellation itself.
            if case .finished(let result)? = await group.next() {
                switch result {
                case .success: return .finished(result)
                case .failure(let error) where error.code != .cancelled: return .finished(result)
                case .failure: break
                }
            }
            return .renew
        }
        switch outcome {
        case .finished(let result): return try result.get()
        case .renew:
            // The caller's own task was cancelled (the screen went away): that ends the request, it is not renewed.
            if Task.isCancelled { throw .cancelled(stage: .authenticator, "the task was cancelled while the AutoFill request waited") }
            return nil
        }
    }
}
