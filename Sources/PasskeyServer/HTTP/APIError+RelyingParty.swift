import PasskeyRelyingParty

extension APIError {
    /// The HTTP answer for a relying-party refusal: the library's code and message, with the status this server gives
    /// the code. Codes not listed are refusals of what the client sent (verification failures included): 400.
    init(_ error: RelyingPartyError) {
        var mapped = APIError(
            status: Self.status(of: error.code), code: error.code.rawValue, message: error.message, logDetail: error.logDetail,
            expected: error.expected, received: error.received)
        mapped.accountID = error.accountID
        mapped.accountUsername = error.accountUsername
        mapped.unknownCredential = error.unknownCredential
        self = mapped
    }

    /// The status of each code that is not a plain 400 (docs/error-codes.md).
    static func status(of code: RelyingPartyError.Code) -> Int {
        switch code {
        case "api_key_missing", "api_key_invalid", "api_key_revoked", "connect_token_missing", "connect_token_invalid", .accountLinkInvalid: 401
        case .registrationClosed, .accountDisabled, "connect_token_wrong_type": 403
        case .userNotFound, .passkeyNotFound, .notFound, .webhookEndpointNotFound: 404
        case .usernameTaken, .credentialExists, .counterConflict, "user_id_ambiguous", .webhookEndpointLimit: 409
        case .internalError: 500
        case .busy, .storageUnavailable: 503
        default: 400
        }
    }
}

/// Runs relying-party work inside a step typed to throw ``APIError``: its refusals become API errors.
func answering<T>(_ body: () throws(RelyingPartyError) -> T) throws(APIError) -> T {
    do { return try body() } catch { throw APIError(error) }
}
