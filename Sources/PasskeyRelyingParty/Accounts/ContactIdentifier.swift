import Foundation
import PasskeyStorage
public import PasskeyWire

/// The contact an account is named by when the system's sign-up sheet creates it together with its first passkey
/// (Apple's account creation, `ASAuthorizationAccountCreationProvider`, iOS 26): an email address or a phone number the
/// person picked. It becomes the account's username, so it passes the username rules first
/// (``UsernameRules/normalized(_:newAccount:)``), then the rules of its kind. Both kinds are ASCII only, which is
/// stricter than the rules for new names (scripts, unassigned code points): a contact in other letters is
/// `contact_invalid`, the answer that says what a contact must be.
///
/// The server does not know that the person owns the contact: the system sheet offers the contacts on the device, and
/// a client can send any. An app that mails or texts the person verifies it first.
public enum ContactIdentifier {
    /// The `contact` option of registration options: which kinds the sheet may offer, `email`, `phone`, or both
    /// (`email,phone` or `phone,email`), spelt exactly so. Empty when the parameter is absent.
    public static func acceptedKinds(_ raw: String?) throws(RelyingPartyError) -> [ContactKind] {
        guard let raw else { return [] }
        var kinds: [ContactKind] = []
        for part in raw.split(separator: ",", omittingEmptySubsequences: false) {
            let kind = ContactKind(rawValue: String(part))
            guard kind == .email || kind == .phone, !kinds.contains(kind) else {
                throw RelyingPartyError(.contactKindInvalid, "contact takes email, phone, or both (email,phone), each once.")
            }
            kinds.append(kind)
        }
        return kinds
    }

    /// The username the picked contact gives the new account: trimmed, NFC; an email address as typed, a phone number
    /// as `+` and its digits.
    public static func username(_ raw: String?, accepting kinds: [ContactKind]) throws(RelyingPartyError) -> String {
        guard let name = try UsernameRules.normalized(raw) else {
            throw RelyingPartyError(
                .contactRequired, "These options create an account named by the contact picked in the sign-up sheet: send it as username.")
        }
        let kind = ContactKind.of(name)
        let valid: String? = kind == .email ? (isEmailAddress(name) ? name : nil) : phoneNumber(name)
        let wanted = kinds.map(\.described).joined(separator: " or ")
        guard let valid else {
            throw RelyingPartyError(
                .contactInvalid,
                kind == .email || kinds == [.email]
                    ? "The contact is not \(wanted) this server accepts: an address in ASCII, name@example.com (an international domain in its xn-- form)."
                    : "The contact is not \(wanted) this server accepts: a phone number in international form is + and 7 to 15 digits, the first not 0 (+44 20 7946 0000).")
        }
        guard kinds.contains(kind) else {
            throw RelyingPartyError(.contactInvalid, "This sign-up accepts \(wanted) only, not \(kind.described).")
        }
        return valid
    }

    /// `+` and the digits of a phone number in international form (E.164: a country code, which never starts with 0,
    /// and at most 15 digits in all; 7 is the fewest a real number has), from its text with spaces, dots, hyphens and
    /// parentheses between the digits; nil for anything else. ASCII digits only: fullwidth or other scripts' digits
    /// would let one number be written in ways that do not compare equal.
    public static func phoneNumber(_ text: String) -> String? {
        guard text.first == "+" else { return nil }
        var digits = ""
        for character in text.dropFirst() {
            if let ascii = character.asciiValue, (0x30...0x39).contains(ascii) {
                digits.append(character)
            } else if !" .-()".contains(character) {
                return nil
            }
        }
        guard (7...15).contains(digits.count), digits.first != "0" else { return nil }
        return "+" + digits
    }

    /// An address mail can be sent to, as far as its shape tells, in ASCII only, so that no look-alike letter (Cyrillic
    /// `а`, fullwidth `ａ`, a one-dot leader for `.`) makes a second account for someone else's address: a local part of
    /// RFC 5322 atext and inner dots, one `@`, and a domain of two or more labels of letters, digits and inner hyphens
    /// (an international domain in its `xn--` form) whose last label is letters.
    public static func isEmailAddress(_ text: String) -> Bool {
        guard text.allSatisfy(\.isASCII) else { return false }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let local = parts.first, let domain = parts.last, (1...64).contains(local.count) else { return false }
        let atext = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~")
        guard local.split(separator: ".", omittingEmptySubsequences: false).allSatisfy({ !$0.isEmpty && $0.allSatisfy(atext.contains) })
        else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, let last = labels.last, last.count >= 2, last.allSatisfy(\.isLetter) || last.hasPrefix("xn--") else {
            return false
        }
        return labels.allSatisfy { label in
            (1...63).contains(label.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0 == "-" || $0.isLetter || $0.isNumber }
        }
    }
}
