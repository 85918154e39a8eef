public import PasskeyStorage

/// How a stored credential is shown to its owner and to the app's backend, and where it can be used.
public enum PasskeyListing {
    /// Passkey providers tied to one platform family, by AAGUID. A passkey from one of these syncs within that family
    /// only; any other synced passkey (a password manager) is usable everywhere its manager runs.
    public static let platformProviders: [String: Set<String>] = [
        // Apple Passwords / iCloud Keychain, and its managed variant.
        "fbfc3007-154e-4ecc-8c0b-6e020557d7bd": ["ios", "ipados", "macos", "visionos"],
        "dd4ec289-e01d-41c9-bb89-70fa845d4bf2": ["ios", "ipados", "macos", "visionos"],
        // Google Password Manager.
        "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4": ["android", "chromeos"],
        // Windows Hello.
        "08987058-cadc-4b81-b6e1-30de50dcbe96": ["windows"],
        "9ddd1817-af5a-4672-a2b9-3e3dd95000a9": ["windows"],
        "6028b017-b1d4-4c02-b4b3-afcdafc96bb2": ["windows"],
    ]

    /// Whether `credential` can sign in on `platform` without another device: a platform provider's passkey on its own
    /// platform family, or a synced passkey from a cross-platform password manager. Device-bound passkeys and security
    /// keys do not count (the device they live on is unknown), so the app still offers a passkey for this device.
    public static func isUsable(_ credential: CredentialRecordEntry, on platform: String?) -> Bool {
        guard let platform = platform?.lowercased() else { return false }
        if let platforms = platformProviders[credential.aaguid.lowercased()] { return platforms.contains(platform) }
        return credential.backupEligible && credential.aaguid != "00000000-0000-0000-0000-000000000000"
    }
}
