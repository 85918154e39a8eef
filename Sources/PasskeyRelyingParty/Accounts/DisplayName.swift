import Foundation

/// The account's display name as registration options and tokens carry it (`user.displayName`).
public enum DisplayName {
    public static let maximumLength = 64

    /// Display names are stored truncated (to 64 characters and 256 UTF-8 bytes, at a character boundary) and without
    /// control or format characters (WebAuthn L3 §5.4.3 allows truncation).
    public static func sanitized(_ raw: String?, fallback: String) -> String {
        let cleaned = String(
            String.UnicodeScalarView((raw ?? "").unicodeScalars.filter { $0.properties.generalCategory != .control && $0.properties.generalCategory != .format })
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !cleaned.isEmpty else { return fallback }
        var kept = Substring()
        var bytes = 0
        for character in cleaned.prefix(maximumLength) {
            bytes += character.utf8.count
            guard bytes <= DisplayText.maximumNameBytes else { break }
            kept.append(character)
        }
        return kept.isEmpty ? fallback : String(kept)
    }
}
