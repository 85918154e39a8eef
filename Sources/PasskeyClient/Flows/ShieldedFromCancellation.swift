/// Runs `body` in a task of its own, which the caller's cancellation does not reach, and returns its outcome.
///
/// For the verification of a credential the authenticator already made: once the person has made a passkey, giving up
/// its verification (a view that went away, a task cancelled during Face ID) would leave the passkey on the device,
/// unknown to the server, offered by AutoFill and refused at every use. So that request is sent and its answer awaited
/// whatever happens to the task that asked; the task's own cancellation still shows at its next step.
func shieldedFromCancellation<T: Sendable>(_ body: @escaping @Sendable () async throws(PasskeyError) -> T) async throws(PasskeyError) -> T {
    let outcome = await Task { () async -> Result<T, PasskeyError> in
        do throws(PasskeyError) { return .success(try await body()) } catch { return .failure(error) }
    }.value
    return try outcome.get()
}
