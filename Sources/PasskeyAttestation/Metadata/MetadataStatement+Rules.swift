public import PasskeyCore

extension MetadataStatement {
    /// FIDO Registry §3.5 attestation type names, as WebAuthn names the types (`basic_surrogate` is self attestation;
    /// ECDAA has no WebAuthn verification any more).
    static let attestationTypeNames: [String: AttestationType] = [
        "basic_full": .basic, "basic_surrogate": .self, "attca": .attCA, "anonca": .anonCA, "none": .none,
    ]

    /// What the statement says of its model's attestations. A type name this library does not know leaves the list
    /// unjudged (empty), rather than refusing what the model may well make.
    public var rules: ModelStatementRules {
        let types = attestationTypes.map { Self.attestationTypeNames[$0] }
        return ModelStatementRules(attestationTypes: types.contains(nil) ? [] : Set(types.compactMap { $0 }))
    }
}

extension MetadataBLOB {
    /// Every FIDO2 model's ``MetadataStatement/rules``, by AAGUID.
    public var modelStatementRules: [AAGUID: ModelStatementRules] {
        var rules: [AAGUID: ModelStatementRules] = [:]
        for entry in entries {
            guard let aaguid = entry.aaguid.flatMap({ AAGUID($0) }), let statement = entry.metadataStatement else { continue }
            rules[aaguid] = statement.rules
        }
        return rules
    }
}
