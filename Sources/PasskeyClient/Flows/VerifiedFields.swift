import PasskeyAPI
import PasskeyWire

/// The members both verify answers share (``PasskeyAPI/VerifiedAccountFields``), as a result is made of them.
struct VerifiedFields {
    var verified: Bool
    var username: String?
    var userId: String
    var credentialId: String
    var isAnonymous: Bool
    var signedPasskeyData: String?
    var counterRegressed: Bool

    init(_ account: VerifiedAccountFields, counterRegressed: Bool, expectedCredentialId: String) {
        verified = account.verified
        username = account.username
        userId = account.userId
        credentialId = account.credentialId ?? expectedCredentialId
        isAnonymous = account.isAnonymous
        signedPasskeyData = account.signedPasskeyData
        self.counterRegressed = counterRegressed
    }

    /// A sign-in's answer (``PasskeyAPI/VerifyAuthenticationAnswer``).
    static func signIn(_ object: JSONObject) throws(PasskeyError) -> VerifyAuthenticationAnswer {
        try decoded(VerifyAuthenticationAnswer.self, object) { $0.account }
    }

    /// A verify answer that says verified, with a userId; anything else is an answer the SDK cannot use.
    static func decoded<Answer: JSONRepresentable>(
        _ type: Answer.Type, _ object: JSONObject, account: (Answer) -> VerifiedAccountFields
    ) throws(PasskeyError) -> Answer {
        guard let answer = try? Answer(json: .object(object)), account(answer).verified else {
            throw PasskeyError(.invalidResponse, stage: .verification, "the server's answer does not say verified with a userId")
        }
        return answer
    }
}
