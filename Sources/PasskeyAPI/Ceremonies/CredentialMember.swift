public import PasskeyWire

extension JSONObjectReader {
    /// A credential in WebAuthn L3 JSON, also accepted wrapped as `{"credential": …}` (as some clients of the seeds'
    /// guides send it), its errors named by their path (`cred.response.clientDataJSON`, or `cred.credential.…` when
    /// wrapped).
    public func credential<Response: AuthenticatorResponseJSON>(
        _ name: String, as: PublicKeyCredentialJSON<Response>.Type
    ) throws(WireError) -> PublicKeyCredentialJSON<Response> {
        var value = try required(name)
        var path = fieldPath(name)
        if case .object(let object) = value, object["response"] == nil, let inner = object["credential"] {
            value = inner
            path += ".credential"
        }
        do throws(WireError) { return try PublicKeyCredentialJSON<Response>(json: value) } catch { throw error.within(path) }
    }
}
