import Foundation

/// The name a person gives one of their passkeys ("Work laptop"), from the management API or the dashboard.
///
/// Unlike display names in registration options, which WebAuthn lets a server shorten (L3 §5.4.3), a name typed in
/// a rename is taken whole or refused: stored shortened or with characters dropped, the person would see a name they
/// did not type.
enum PasskeyName {
    static let maximumLength = 64

    /// The name without surrounding white space, or `name_invalid`: empty, over 64 characters, or with control or
    /// format characters (line breaks, NUL, bidirectional overrides).
    static func validated(_ raw: String) throws(APIError) -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        let refused = name.isEmpty || name.count > maximumLength
            || name.unicodeScalars.contains { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format }
        guard !refused else {
            throw APIError.badRequest(
                "name_invalid", "A passkey name has 1 to \(maximumLength) characters and no control or format characters.")
        }
        return name
    }
}
