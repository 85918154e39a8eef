/// The typed error `body` throws, or `nil` when it returns: for tests that check which error a call ends with, with
/// the error's own type (its code, stage and reason) rather than `any Error`.
public func thrownError<T, Failure: Error>(_ body: () async throws(Failure) -> T) async -> Failure? {
    do throws(Failure) {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}
