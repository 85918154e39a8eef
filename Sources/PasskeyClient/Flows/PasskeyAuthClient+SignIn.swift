import PasskeyWire

extension PasskeyAuthClient {
    /// Signs in with whatever the person has, in one sheet: a passkey (verified with the server, as
    /// ``authenticate(username:mediation:prf:)`` does), or a saved password or Sign in with Apple when `alternatives`
    /// offers them, handed back for the app's own sign-in. This is Apple's combined request: an app with passwords
    /// shows one sheet to everybody and moves people to passkeys as they come.
    ///
    /// An authenticator without passwords or Sign in with Apple (the software authenticator) offers passkeys only, and
    /// AutoFill (`.conditional`) takes passkeys only; both then end as ``authenticate(username:mediation:prf:)`` does.
    /// The options fetched for a sign-in that ends with an alternative are left to expire on the server.
    public func signIn(username: String? = nil, mediation: AssertionMediation = .modal, offering alternatives: SignInAlternatives)
        async throws(PasskeyError) -> SignInResult
    {
        let username = username.flatMap { $0.isEmpty ? nil : $0 }
        guard !alternatives.isEmpty, mediation != .conditional else {
            return .passkey(try await authenticate(username: username, mediation: mediation))
        }
        emit(.authenticationStarted(username: username))
        do throws(PasskeyError) {
            var query: [RelyingPartyRequest.QueryItem] = []
            if let username { query.append(.init(name: "username", value: username)) }
            let answer = try await exchange(
                RelyingPartyRequest(method: .get, path: "generate-authentication-options", query: query), stage: .options)
            let (options, challengeKey) = try Self.requestOptions(answer)
            try checkCancellation(before: .authenticator)
            let chosen = try await authenticator.getCredential(AssertionRequest(options: options, mediation: mediation), offering: alternatives)
            switch chosen {
            case .passkey(let assertion):
                let result = try await completeAuthentication(SignedRequest(challengeKey: challengeKey, options: options, assertion: assertion), prf: nil)
                emit(.authenticationSucceeded(userId: result.userId, credentialId: result.credentialId, isAnonymous: result.isAnonymous))
                return .passkey(result)
            case .password(let credential):
                emit(.authenticationEndedWithAlternative(kind: .password))
                return .password(credential)
            case .appleID(let credential):
                emit(.authenticationEndedWithAlternative(kind: .appleID))
                return .appleID(credential)
            }
        } catch {
            emit(.authenticationFailed(PasskeyClientFailure(error)))
            throw error
        }
    }
}
