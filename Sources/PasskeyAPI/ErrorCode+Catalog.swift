// Every code the API answers with, in the order of docs/error-codes.md (ErrorCatalogTests checks the document against
// this table, status for status).
extension ErrorCode {
    // Reading what the client sent, and WebAuthn L3 §7.1 and §7.2 verification (PasskeyWire's and PasskeyCore's codes).
    public static let jsonMalformed = ErrorCode(rawValue: "json_malformed")
    public static let fieldMissing = ErrorCode(rawValue: "field_missing")
    public static let fieldInvalid = ErrorCode(rawValue: "field_invalid")
    public static let invalidBase64URL = ErrorCode(rawValue: "invalid_base64url")
    public static let credentialTypeInvalid = ErrorCode(rawValue: "credential_type_invalid")
    public static let credentialIDMismatch = ErrorCode(rawValue: "credential_id_mismatch")
    public static let credentialIDTooLong = ErrorCode(rawValue: "credential_id_too_long")
    public static let clientDataMalformed = ErrorCode(rawValue: "client_data_malformed")
    public static let clientDataTypeMismatch = ErrorCode(rawValue: "client_data_type_mismatch")
    public static let challengeMismatch = ErrorCode(rawValue: "challenge_mismatch")
    public static let originMismatch = ErrorCode(rawValue: "origin_mismatch")
    public static let crossOriginNotAllowed = ErrorCode(rawValue: "cross_origin_not_allowed")
    public static let topOriginMismatch = ErrorCode(rawValue: "top_origin_mismatch")
    public static let tokenBindingInvalid = ErrorCode(rawValue: "token_binding_invalid")
    public static let cborMalformed = ErrorCode(rawValue: "cbor_malformed")
    public static let attestationObjectMalformed = ErrorCode(rawValue: "attestation_object_malformed")
    public static let authenticatorDataMalformed = ErrorCode(rawValue: "authenticator_data_malformed")
    public static let rpIDHashMismatch = ErrorCode(rawValue: "rp_id_hash_mismatch")
    public static let userPresenceRequired = ErrorCode(rawValue: "user_presence_required")
    public static let userVerificationRequired = ErrorCode(rawValue: "user_verification_required")
    public static let backupStateInvalid = ErrorCode(rawValue: "backup_state_invalid")
    public static let backupEligibilityChanged = ErrorCode(rawValue: "backup_eligibility_changed")
    public static let backupPolicyViolation = ErrorCode(rawValue: "backup_policy_violation")
    public static let unsupportedAlgorithm = ErrorCode(rawValue: "unsupported_algorithm")
    public static let algorithmNotAllowed = ErrorCode(rawValue: "algorithm_not_allowed")
    public static let publicKeyMalformed = ErrorCode(rawValue: "public_key_malformed")
    public static let publicKeyWeak = ErrorCode(rawValue: "public_key_weak")
    public static let signatureInvalid = ErrorCode(rawValue: "signature_invalid")
    public static let unsupportedAttestationFormat = ErrorCode(rawValue: "unsupported_attestation_format")
    public static let attestationInvalid = ErrorCode(rawValue: "attestation_invalid")
    public static let attestationUntrusted = ErrorCode(rawValue: "attestation_untrusted")
    public static let attestationNotAllowed = ErrorCode(rawValue: "attestation_not_allowed")
    public static let aaguidNotAllowed = ErrorCode(rawValue: "aaguid_not_allowed")
    public static let authenticatorCompromised = ErrorCode(rawValue: "authenticator_compromised")
    public static let authenticatorNotAdmitted = ErrorCode(rawValue: "authenticator_not_admitted")
    public static let safetyNetIntegrityFailed = ErrorCode(rawValue: "safetynet_integrity_failed")
    public static let credentialNotAllowed = ErrorCode(rawValue: "credential_not_allowed")
    public static let userHandleMissing = ErrorCode(rawValue: "user_handle_missing")
    public static let userHandleMismatch = ErrorCode(rawValue: "user_handle_mismatch")
    public static let counterRegressed = ErrorCode(rawValue: "counter_regressed")

    // Ceremonies, accounts and storage (the relying-party library).
    public static let challengeInvalid = ErrorCode(rawValue: "challenge_invalid")
    public static let usernameInvalid = ErrorCode(rawValue: "username_invalid")
    public static let usernameMismatch = ErrorCode(rawValue: "username_mismatch")
    public static let contactKindInvalid = ErrorCode(rawValue: "contact_kind_invalid")
    public static let contactRequired = ErrorCode(rawValue: "contact_required")
    public static let contactInvalid = ErrorCode(rawValue: "contact_invalid")
    public static let credentialUnknown = ErrorCode(rawValue: "credential_unknown")
    public static let passkeyDeletedOnServer = ErrorCode(rawValue: "passkey_deleted_on_server")
    public static let accountDisabled = ErrorCode(rawValue: "account_disabled")
    public static let registrationClosed = ErrorCode(rawValue: "registration_closed")
    public static let usernameTaken = ErrorCode(rawValue: "username_taken")
    public static let credentialExists = ErrorCode(rawValue: "credential_exists")
    public static let counterConflict = ErrorCode(rawValue: "counter_conflict")
    public static let notFound = ErrorCode(rawValue: "not_found")
    public static let busy = ErrorCode(rawValue: "busy")
    public static let storageUnavailable = ErrorCode(rawValue: "storage_unavailable")
    public static let internalError = ErrorCode(rawValue: "internal_error")

    // The HTTP edge (passkey-server).
    public static let requestIncomplete = ErrorCode(rawValue: "request_incomplete")
    public static let requestTimeout = ErrorCode(rawValue: "request_timeout")
    public static let requestMalformed = ErrorCode(rawValue: "request_malformed")
    public static let transferCodingUnsupported = ErrorCode(rawValue: "transfer_coding_unsupported")
    public static let contentTypeUnsupported = ErrorCode(rawValue: "content_type_unsupported")
    public static let contentEncodingUnsupported = ErrorCode(rawValue: "content_encoding_unsupported")
    public static let requestHeadersTooLarge = ErrorCode(rawValue: "request_headers_too_large")
    public static let metricsTokenInvalid = ErrorCode(rawValue: "metrics_token_invalid")
    public static let originNotAllowed = ErrorCode(rawValue: "origin_not_allowed")
    public static let methodNotAllowed = ErrorCode(rawValue: "method_not_allowed")
    public static let badRequest = ErrorCode(rawValue: "bad_request")
    public static let requestTooLarge = ErrorCode(rawValue: "request_too_large")
    public static let rateLimited = ErrorCode(rawValue: "rate_limited")

    // Webhooks.
    public static let webhookSignatureInvalid = ErrorCode(rawValue: "webhook_signature_invalid")
    public static let webhookURLInvalid = ErrorCode(rawValue: "webhook_url_invalid")
    public static let webhookEndpointLimit = ErrorCode(rawValue: "webhook_endpoint_limit")
    public static let webhookEventTypeUnknown = ErrorCode(rawValue: "webhook_event_type_unknown")
    public static let webhookEndpointNotFound = ErrorCode(rawValue: "webhook_endpoint_not_found")
    public static let webhookDeliveryFailed = ErrorCode(rawValue: "webhook_delivery_failed")

    // Connect, links and signed tokens.
    public static let apiKeyMissing = ErrorCode(rawValue: "api_key_missing")
    public static let apiKeyInvalid = ErrorCode(rawValue: "api_key_invalid")
    public static let apiKeyRevoked = ErrorCode(rawValue: "api_key_revoked")
    public static let connectTokenMissing = ErrorCode(rawValue: "connect_token_missing")
    public static let accountLinkInvalid = ErrorCode(rawValue: "account_link_invalid")
    public static let connectTokenInvalid = ErrorCode(rawValue: "connect_token_invalid")
    public static let connectTokenWrongType = ErrorCode(rawValue: "connect_token_wrong_type")
    public static let tokenTypeInvalid = ErrorCode(rawValue: "token_type_invalid")
    public static let userIDInvalid = ErrorCode(rawValue: "user_id_invalid")
    public static let userNotFound = ErrorCode(rawValue: "user_not_found")
    public static let userIDAmbiguous = ErrorCode(rawValue: "user_id_ambiguous")
    public static let passkeyNotFound = ErrorCode(rawValue: "passkey_not_found")
    public static let credentialIDInvalid = ErrorCode(rawValue: "credential_id_invalid")
    public static let nameInvalid = ErrorCode(rawValue: "name_invalid")
    public static let dateInvalid = ErrorCode(rawValue: "date_invalid")
    public static let recentFailuresInvalid = ErrorCode(rawValue: "recent_failures_invalid")
    public static let mediationInvalid = ErrorCode(rawValue: "mediation_invalid")
    public static let tokenInvalid = ErrorCode(rawValue: "token_invalid")
    public static let tokenExpired = ErrorCode(rawValue: "token_expired")
    public static let tokenReplayed = ErrorCode(rawValue: "token_replayed")
    public static let tokenRevoked = ErrorCode(rawValue: "token_revoked")

    // The OpenID Provider (docs/oidc.md): OAuth 2.0 (RFC 6749 §4.1.2.1, §5.2, RFC 6750 §3.1) and OpenID Connect Core
    // §3.1.2.6 names, so that every OAuth client reads them.
    public static let invalidRequest = ErrorCode(rawValue: "invalid_request")
    public static let invalidClient = ErrorCode(rawValue: "invalid_client")
    public static let invalidGrant = ErrorCode(rawValue: "invalid_grant")
    public static let unauthorizedClient = ErrorCode(rawValue: "unauthorized_client")
    public static let unsupportedGrantType = ErrorCode(rawValue: "unsupported_grant_type")
    public static let unsupportedResponseType = ErrorCode(rawValue: "unsupported_response_type")
    public static let invalidScope = ErrorCode(rawValue: "invalid_scope")
    public static let invalidToken = ErrorCode(rawValue: "invalid_token")
    public static let accessDenied = ErrorCode(rawValue: "access_denied")
    public static let loginRequired = ErrorCode(rawValue: "login_required")
    public static let consentRequired = ErrorCode(rawValue: "consent_required")
    public static let requestNotSupported = ErrorCode(rawValue: "request_not_supported")
    public static let requestURINotSupported = ErrorCode(rawValue: "request_uri_not_supported")
    /// Not OAuth's: an authorization request whose client or redirect URI cannot be trusted, answered on an error page.
    public static let oidcClientUnknown = ErrorCode(rawValue: "oidc_client_unknown")
    public static let redirectURIUnregistered = ErrorCode(rawValue: "redirect_uri_unregistered")
    public static let oidcClientNotFound = ErrorCode(rawValue: "oidc_client_not_found")
    public static let oidcClientInvalid = ErrorCode(rawValue: "oidc_client_invalid")
    public static let oidcDisabled = ErrorCode(rawValue: "oidc_disabled")

    // The dashboard (docs/dashboard.md).
    public static let adminUnauthorized = ErrorCode(rawValue: "admin_unauthorized")
    public static let csrfInvalid = ErrorCode(rawValue: "csrf_invalid")
    public static let freshCheckRequired = ErrorCode(rawValue: "fresh_check_required")
    public static let inviteInvalid = ErrorCode(rawValue: "invite_invalid")

    /// Every code with the status `passkey-server` answers it with (nil: never an answer) and its meaning in a line.
    public static let catalog: [Definition] = [
        Definition(.jsonMalformed, 400, "The body is not JSON the server accepts."),
        Definition(.fieldMissing, 400, "A required member is missing."),
        Definition(.fieldInvalid, 400, "A member or query parameter has the wrong type or value, or is given twice."),
        Definition(.invalidBase64URL, 400, "A binary member is not base64url."),
        Definition(.credentialTypeInvalid, 400, "The credential's type is not \"public-key\"."),
        Definition(.credentialIDMismatch, 400, "id, rawId and the authenticator data's credential ID disagree."),
        Definition(.credentialIDTooLong, 400, "The credential ID is longer than 1023 bytes."),
        Definition(.clientDataMalformed, 400, "clientDataJSON is not UTF-8 JSON with type, challenge and origin."),
        Definition(.clientDataTypeMismatch, 400, "The client data is for the other ceremony."),
        Definition(.challengeMismatch, 400, "The client signed another challenge than the one issued."),
        Definition(.originMismatch, 400, "The page or app that ran the ceremony is not an accepted origin."),
        Definition(.crossOriginNotAllowed, 400, "The ceremony ran in a cross-origin iframe."),
        Definition(.topOriginMismatch, 400, "The page embedding the iframe is not an accepted top-level origin."),
        Definition(.tokenBindingInvalid, 400, "clientDataJSON's tokenBinding status is neither present nor supported."),
        Definition(.cborMalformed, 400, "The CBOR inside the response is malformed."),
        Definition(.attestationObjectMalformed, 400, "The attestation object lacks fmt, attStmt or authData."),
        Definition(.authenticatorDataMalformed, 400, "The authenticator data is truncated, too long, or contradicts its flags."),
        Definition(.rpIDHashMismatch, 400, "The credential is scoped to another RP ID."),
        Definition(.userPresenceRequired, 400, "The authenticator did not report user presence."),
        Definition(.userVerificationRequired, 400, "The authenticator did not verify the user."),
        Definition(.backupStateInvalid, 400, "Backed up but not backup eligible."),
        Definition(.backupEligibilityChanged, 400, "Backup eligibility changed since registration."),
        Definition(.backupPolicyViolation, 400, "The backup flags break the relying party's policy."),
        Definition(.unsupportedAlgorithm, 400, "A signature algorithm this server cannot verify."),
        Definition(.algorithmNotAllowed, 400, "An algorithm the relying party did not offer."),
        Definition(.publicKeyMalformed, 400, "The credential public key is malformed."),
        Definition(.publicKeyWeak, 400, "The credential public key is too weak."),
        Definition(.signatureInvalid, 400, "The signature does not verify with the stored public key."),
        Definition(.unsupportedAttestationFormat, 400, "The attestation format is not accepted here."),
        Definition(.attestationInvalid, 400, "The attestation statement fails its format's verification."),
        Definition(.attestationUntrusted, 400, "The attestation chain leads to no trusted root."),
        Definition(.attestationNotAllowed, 400, "Trusted attestation is required and there is none."),
        Definition(.aaguidNotAllowed, 400, "This authenticator model is not accepted here."),
        Definition(.authenticatorCompromised, 400, "The FIDO Metadata Service reports this authenticator model compromised."),
        Definition(.authenticatorNotAdmitted, 400, "The metadata policy admits no authenticator of this model."),
        Definition(.safetyNetIntegrityFailed, 400, "SafetyNet says the device fails integrity checks."),
        Definition(.credentialNotAllowed, 400, "The credential is not one the options allowed."),
        Definition(.userHandleMissing, 400, "A sign-in without a username got no user handle."),
        Definition(.userHandleMismatch, 400, "The user handle does not belong to the credential's owner."),
        Definition(.counterRegressed, 400, "The signature counter did not increase."),

        Definition(.challengeInvalid, 400, "The challenge is unknown, used or expired: request new options."),
        Definition(.usernameInvalid, 400, "The username breaks the naming rules."),
        Definition(.usernameMismatch, 400, "The username sent is not the one the options were made for."),
        Definition(.contactKindInvalid, 400, "contact is not email, phone or both."),
        Definition(.contactRequired, 400, "Options made with contact were completed without one."),
        Definition(.contactInvalid, 400, "The contact picked is not of an accepted kind or form."),
        Definition(.credentialUnknown, 400, "The passkey is not registered here."),
        Definition(.passkeyDeletedOnServer, 400, "The passkey was deleted from an account that still exists."),
        Definition(.requestIncomplete, 400, "The body ended before its Content-Length."),
        Definition(.requestTimeout, 408, "The request did not arrive in time."),
        Definition(.requestMalformed, 400, "The bytes are not HTTP/1.1, or the Host header is missing or repeated."),
        Definition(.transferCodingUnsupported, 400, "Transfer-Encoding other than chunked."),
        Definition(.contentTypeUnsupported, 415, "A body without Content-Type: application/json."),
        Definition(.contentEncodingUnsupported, 415, "A compressed request body."),
        Definition(.requestHeadersTooLarge, 431, "The header section is too large."),
        Definition(.metricsTokenInvalid, 401, "GET /metrics without the metrics token."),
        Definition(.originNotAllowed, 403, "A CORS preflight from an origin that is not a web origin of the server."),
        Definition(.accountDisabled, 403, "The account is disabled."),
        Definition(.registrationClosed, 403, "New accounts are made only through connect tokens."),
        Definition(.notFound, 404, "No such route or record."),
        Definition(.methodNotAllowed, 405, "The path exists, not with this method."),
        Definition(.badRequest, 400, "A request the HTTP layer refused before any route read it."),
        Definition(.usernameTaken, 409, "The username belongs to an account."),
        Definition(.credentialExists, 409, "The passkey is already registered."),
        Definition(.counterConflict, 409, "Another sign-in with this passkey happened at the same time."),
        Definition(.requestTooLarge, 413, "The body is larger than the limit."),
        Definition(.rateLimited, 429, "Too many options requests from this client."),
        Definition(.storageUnavailable, 503, "The database cannot be reached."),
        Definition(.busy, 503, "Too many ceremonies are in progress."),
        Definition(.internalError, 500, "A server fault; the details are in the log only."),

        Definition(.webhookSignatureInvalid, nil, "A webhook message whose headers do not prove it came from this server."),
        Definition(.webhookURLInvalid, 400, "The endpoint's URL is not strict https:// to a receiver on the public internet."),
        Definition(.webhookEndpointLimit, 409, "As many webhook endpoints as allowed exist already."),
        Definition(.webhookEventTypeUnknown, 400, "An event type this server does not send."),
        Definition(.webhookEndpointNotFound, 404, "No webhook endpoint has this id."),
        Definition(.webhookDeliveryFailed, nil, "An event, not an answer: every retry of a delivery failed."),

        Definition(.apiKeyMissing, 401, "A backend call without its API key."),
        Definition(.apiKeyInvalid, 401, "The API key is not known to this server."),
        Definition(.apiKeyRevoked, 401, "The API key was revoked."),
        Definition(.connectTokenMissing, 401, "An app call without its connect token."),
        Definition(.accountLinkInvalid, 401, "A recovery or onboarding link that cannot be used."),
        Definition(.connectTokenInvalid, 401, "The connect token is unknown, expired or used."),
        Definition(.connectTokenWrongType, 403, "The connect token is of another type than the call needs."),
        Definition(.tokenTypeInvalid, 400, "An unknown connect token type."),
        Definition(.userIDInvalid, 400, "user.id is empty, too long, padded or has control characters."),
        Definition(.userNotFound, 404, "No such account."),
        Definition(.userIDAmbiguous, 409, "The id is one account's externalUserId and another's userId."),
        Definition(.passkeyNotFound, 404, "The account has no such passkey."),
        Definition(.credentialIDInvalid, 400, "A passkey id in a path is not base64url."),
        Definition(.nameInvalid, 400, "A passkey name is empty, too long or unsafe to show."),
        Definition(.dateInvalid, 400, "lastDeclinedAt is not an ISO 8601 time."),
        Definition(.recentFailuresInvalid, 400, "recentFailures is negative."),
        Definition(.mediationInvalid, 400, "mediation is neither conditional nor required."),
        Definition(.tokenInvalid, 400, "signedPasskeyData is malformed or fails its signature, issuer or audience."),
        Definition(.tokenExpired, 400, "signedPasskeyData is past its exp."),
        Definition(.tokenReplayed, 400, "signedPasskeyData was already verified once."),
        Definition(.tokenRevoked, 400, "signedPasskeyData was issued before its account was last disabled."),

        Definition(.invalidRequest, 400, "An OAuth or OpenID request missing a parameter, repeating one, or with one this provider refuses."),
        Definition(.invalidClient, 401, "The client is unknown, disabled, or its authentication failed."),
        Definition(.invalidGrant, 400, "The code or refresh token is unknown, expired, used, another client's, or its PKCE verifier or redirect URI does not match."),
        Definition(.unauthorizedClient, 400, "The client may not use this grant or scope."),
        Definition(.unsupportedGrantType, 400, "A grant type other than authorization_code and refresh_token."),
        Definition(.unsupportedResponseType, 400, "A response type other than code (sent to the redirect URI)."),
        Definition(.invalidScope, 400, "A scope without openid, or one the client may not ask for (sent to the redirect URI)."),
        Definition(.invalidToken, 401, "The access token is unknown, expired or revoked, or its account is disabled or gone."),
        Definition(.accessDenied, 400, "The person declined, or the account cannot sign in here (sent to the redirect URI)."),
        Definition(.loginRequired, 400, "prompt=none without a browser session that satisfies the request (sent to the redirect URI)."),
        Definition(.consentRequired, 400, "prompt=none for a third-party client the person has not consented to (sent to the redirect URI)."),
        Definition(.requestNotSupported, 400, "A request object (request=): not supported (sent to the redirect URI)."),
        Definition(.requestURINotSupported, 400, "request_uri=: not supported (sent to the redirect URI)."),
        Definition(.oidcClientUnknown, 400, "An authorization request for an unknown or disabled client: an error page, never a redirect."),
        Definition(.redirectURIUnregistered, 400, "A redirect URI the client did not register: an error page, never a redirect."),
        Definition(.oidcClientNotFound, 404, "No OpenID client has this id."),
        Definition(.oidcClientInvalid, 400, "A client's redirect URI, scope, algorithm, lifetime or name is not accepted."),
        Definition(.oidcDisabled, 404, "This server is not an OpenID Provider: start it with --oidc-issuer."),

        Definition(.adminUnauthorized, 401, "A dashboard call without an admin session."),
        Definition(.csrfInvalid, 403, "A dashboard call without this session's CSRF token."),
        Definition(.freshCheckRequired, 403, "A destructive dashboard action needs a recent passkey check."),
        Definition(.inviteInvalid, 404, "The dashboard setup link is unknown, used or expired."),
    ]
}

extension ErrorCode.Definition {
    init(_ code: ErrorCode, _ status: Int?, _ summary: String) {
        self.code = code
        self.answerStatus = status
        self.summary = summary
    }
}
