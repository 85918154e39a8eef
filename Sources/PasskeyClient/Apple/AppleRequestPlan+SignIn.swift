extension AppleRequestPlan {
    /// The sign-in AuthenticationServices should run for `request` with saved passwords and Sign in with Apple in the
    /// same sheet, as `alternatives` asks (Apple's "Supporting passkeys": the requests of several providers in one
    /// controller).
    ///
    /// The passkey part is planned as ``assertion(_:on:)`` plans it. A modal sheet and an immediate request take the
    /// alternatives; AutoFill does not (`performAutoFillAssistedRequests()` takes passkey requests only, and the
    /// field's own AutoFill already offers saved passwords), so there they are left out and the omission recorded.
    public static func signIn(_ request: AssertionRequest, offering alternatives: SignInAlternatives, on platform: ApplePlatform)
        throws(PasskeyError) -> AppleAssertionPlan
    {
        var plan = try assertion(request, on: platform)
        guard !alternatives.isEmpty else { return plan }
        if plan.presentation == .autoFill {
            if alternatives.passwords {
                plan.omissions.append(Omission("passwords", "AutoFill-assisted requests take passkeys only; the field's AutoFill offers saved passwords"))
            }
            if alternatives.appleID != nil {
                plan.omissions.append(Omission("appleID", "AutoFill-assisted requests take passkeys only"))
            }
            return plan
        }
        plan.password = alternatives.passwords
        plan.appleID = alternatives.appleID
        return plan
    }
}
