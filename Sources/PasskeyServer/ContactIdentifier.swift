import Foundation
import PasskeyStorage

/// The contact an account is named by when the system's sign-up sheet creates it together with its first passkey
/// (Apple's account creation, `ASAuthorizationAccountCreationProvider`, iOS 26): an email address or a phone number the
/// person picked. It becomes the account's username, so it passes the username rules first
/// (``CeremonyService/normalizeUsername(_:newAccount:)``), then the rules of its kind.
enum ContactIdentifier {
    /// The `contact` option of registration options: which kinds the sheet may offer (`email`, `phone`, or both,
    /// comma-separated). Nil when the parameter is absent.
    static func acceptedKinds(_ raw: String?) throws(APIError) -> [ContactKind]? {
        guard let raw else { return nil }
        var kinds: [ContactKind] = []
        for part in raw.split(separator: ",", omittingEmptySubsequences: false) {
            let kind = ContactKind(rawValue: part.trimmingCharacters(in: .whitespaces).lowercased())
            guard kind == .email || kind == .phone else {
                throw APIError.badRequest("contact_kind_invalid", "contact takes email, phone, or both (email,phone).")
            }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        return kinds
    }

    /// The username the picked contact gives the new account: trimmed, NFC; an email address as typed, a phone
    /// number as `+` and its digits (spaces, dots, hyphens and parentheses removed).
    static func username(_ raw: String?, accepting kinds: [ContactKind]) throws(APIError) -> String {
        guard let name = try CeremonyService<InMemoryRepository>.normalizeUsername(raw, newAccount: true) else {
            throw APIError.badRequest(
                "contact_required", "These options create an account named by the contact picked in the sign-up sheet: send it as username.")
        }
        let kind: ContactKind = name.contains("@") ? .email : .phone
        guard kinds.contains(kind) else {
            throw APIError.badRequest(
                "contact_invalid", "This sign-up accepts \(kinds.map(\.rawValue).joined(separator: " or ")) only, not a \(kind.rawValue).")
        }
        if kind == .email {
            guard isEmailAddress(name) else {
                throw APIError.badRequest("contact_invalid", "The contact is not an email address (name@example.com).")
            }
            return name
        }
        let phone = String(name.unicodeScalars.filter { !" .-()".unicodeScalars.contains($0) }.map(Character.init))
        let digits = phone.dropFirst()
        guard phone.first == "+", (8...15).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw APIError.badRequest(
                "contact_invalid", "The contact is not a phone number in international form: + and 8 to 15 digits (+44 20 7946 0000).")
        }
        return phone
    }

    /// An address mail can be sent to, as far as its shape tells: one `@`, a local part of printable characters without
    /// spaces or quotes, a domain of two or more dot-separated labels of letters, digits and inner hyphens.
    static func isEmailAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let local = parts.first, let domain = parts.last, !local.isEmpty, local.count <= 64 else { return false }
        guard !local.hasPrefix("."), !local.hasSuffix("."), !local.contains(".."),
            local.unicodeScalars.allSatisfy({ !$0.properties.isWhitespace && !"\"(),:;<>[\\]".unicodeScalars.contains($0) })
        else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2
            && labels.allSatisfy { label in
                !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                    && label.allSatisfy { $0 == "-" || $0.isLetter || $0.isNumber }
            }
    }
}
