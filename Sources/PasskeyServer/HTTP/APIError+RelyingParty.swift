import PasskeyRelyingParty
import PasskeyWire

extension APIError {
    /// The HTTP answer for a relying-party refusal: the library's code and message, with the code's status from the API's
    /// catalog (``PasskeyAPI/ErrorCode/status``).
    init(_ error: RelyingPartyError) {
        var mapped = APIError(error.code, error.message, logDetail: error.logDetail, expected: error.expected, received: error.received)
        mapped.accountID = error.accountID
        mapped.accountUsername = error.accountUsername
        mapped.unknownCredential = error.unknownCredential
        self = mapped
    }
}

/// Runs relying-party work inside a step typed to throw ``APIError``: its refusals become API errors.
func answering<T>(_ body: () throws(RelyingPartyError) -> T) throws(APIError) -> T {
    do { return try body() } catch { throw APIError(error) }
}

/// ``answering(_:)-(()->T)`` for a library call that waits.
func answering<T>(_ body: () async throws(RelyingPartyError) -> T) async throws(APIError) -> T {
    do { return try await body() } catch { throw APIError(error) }
}

/// Runs a read of what the client sent inside a step typed to throw ``APIError``: a malformed member is a 400.
func answering<T>(_ body: () throws(WireError) -> T) throws(APIError) -> T {
    do { return try body() } catch { throw APIError(error) }
}
