import Hummingbird
import Logging
import PasskeyRelyingParty
import PasskeyStorage
import PasskeyWire

/// What every API step leaves behind, in one place for every controller: its latency and outcome as a metric, a log
/// line for a failure (by code), and its event in the dashboard's log.
struct StepRecorder<Context: RequestContext>: Sendable {
    let metrics: CeremonyMetrics
    /// The dashboard's event log; nil records nothing.
    let events: EventRecorder?
    /// Recorded in each event.
    let rpID: String
    let clientAddress: @Sendable (Request, Context) -> String

    /// Runs a ceremony step, records its outcome and latency, logs failures by code, emits its event to the dashboard's
    /// log, and answers with JSON.
    ///
    /// Failures are logged with their stable code and the verifier's reason (expected and received values: origins,
    /// RP ID hashes, counters — never challenges, keys or credential IDs). A counter regression, the sign of a cloned
    /// authenticator, is a warning.
    ///
    /// `body` throws the edge's errors (``APIError``) and the library's (``PasskeyRelyingParty/RelyingPartyError``) alike:
    /// each is answered as ``APIError/init(mapping:)`` maps it.
    func observed<Answer: JSONRepresentable>(
        _ ceremony: String, _ step: String, _ request: Request, _ context: Context, _ body: (CeremonyNote) async throws -> Answer
    ) async -> Response {
        await observedResponse(ceremony, step, request, context, refusal: { error, _ in Response.error(error) }) { note in Response.json(try await body(note)) }
    }

    /// ``observed(_:_:_:_:_:)`` for a step that answers in a form of its own (a redirect, a page, OAuth's error
    /// JSON): `body` makes the response, `refusal` answers a failure.
    func observedResponse(
        _ ceremony: String, _ step: String, _ request: Request, _ context: Context, refusal: (APIError, any Error) -> Response,
        _ body: (CeremonyNote) async throws -> Response
    ) async -> Response {
        let logger = context.logger
        let start = ContinuousClock.now
        let response: Response
        let note = CeremonyNote()
        do {
            response = try await body(note)
        } catch let thrown {
            let error = APIError(mapping: thrown)
            metrics.record(ceremony: ceremony, step: step, code: error.code, duration: ContinuousClock.now - start)
            let level: Logger.Level = error.code == .counterRegressed ? .warning : (error.statusCode >= 500 ? .error : .notice)
            logger.log(
                level: level, "ceremony failed",
                metadata: [
                    "ceremony": .string(ceremony), "step": .string(step), "code": .string(error.code.rawValue),
                    "detail": .string(error.logDetail ?? error.message),
                ])
            await emit(ceremony, step, request, context, error: error, note: note)
            return refusal(error, thrown)
        }
        metrics.record(ceremony: ceremony, step: step, code: nil, duration: ContinuousClock.now - start)
        await emit(ceremony, step, request, context, error: nil, note: note)
        return response
    }

    /// A sign-in accepted under `--allow-counter-regression` although its counter did not increase: a warning in the log
    /// and the explanation of its event, so an operator can see which passkeys may have been cloned.
    func flagCounterRegression(_ note: CeremonyNote, _ context: Context, _ user: UserRecord, _ credential: CredentialRecordEntry) {
        note.detail = "counter did not increase (accepted: --allow-counter-regression)"
        metrics.recordAcceptedCounterRegression()
        context.logger.warning(
            "sign-in accepted with a signature counter that did not increase (--allow-counter-regression)",
            metadata: [
                "user": "\(user.id)",
                // The ID's first characters, as the event log shows them: enough to find the passkey, not the whole ID.
                "credential": "\(String(Base64URL.encode(credential.id).prefix(EventRecord.credentialIDPrefixLength)))",
            ])
    }

    /// Where a request came from, as its events record it.
    func metadata(_ request: Request, _ context: Context) -> RequestMetadata {
        let requestID: String?
        if case .string(let id) = context.logger[metadataKey: "request_id"] { requestID = id } else { requestID = nil }
        return RequestMetadata(request, clientIP: clientAddress(request, context), requestID: requestID)
    }

    /// Records the step's event, when the server keeps an event log.
    func emit(
        _ ceremony: String, _ step: String, _ request: Request, _ context: Context, error: APIError?, note: CeremonyNote
    ) async {
        guard let events else { return }
        let metadata = metadata(request, context)
        await events.recordCeremony(
            events.ceremonyEvent(
                kind: "\(ceremony).\(step)", rpID: rpID, metadata: metadata, error: error,
                userID: note.userID, username: note.accountName, credentialID: note.credentialID,
                // Only when the step names no account (options, failures): a verified step's account name was
                // normalised by the library already. Only a name that passes the username checks: a refused one may
                // carry direction overrides or invisible characters that would disguise it in the dashboard.
                requestedUsername: note.accountName != nil
                    ? nil : ((try? UsernameRules.normalized(note.username)) ?? nil) ?? error?.accountUsername,
                detail: note.detail),
            logger: context.logger)
    }
}

/// Limits unauthenticated option requests per client address (``ServerConfiguration/optionsPerMinute``).
struct ClientThrottle<Context: RequestContext>: Sendable {
    let limiter: RateLimiter
    let clientAddress: @Sendable (Request, Context) -> String

    func enforce(_ request: Request, _ context: Context) async throws(APIError) {
        try await limiter.enforce(clientAddress(request, context))
    }
}
