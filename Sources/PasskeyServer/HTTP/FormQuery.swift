import Hummingbird

/// A query string read as `application/x-www-form-urlencoded`, the way browsers write it (`URLSearchParams`, HTML
/// forms) and HTTP client libraries do: `+` is a space, `%XX` escapes are decoded in names and values.
///
/// Hummingbird's `queryParameters` keeps `+` as a plus sign, so `?username=Ann+Lee` from the demo page named a different
/// account than the `"Ann Lee"` its JSON body carried next. A `%2B` is still a plus sign.
struct FormQuery: Sendable {
    private let pairs: [(name: String, value: String)]

    init(_ query: String?) {
        guard let query, !query.isEmpty else {
            pairs = []
            return
        }
        pairs = query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (Self.decode(parts.first ?? ""), parts.count > 1 ? Self.decode(parts[1]) : "")
        }
    }

    /// Every name and value, in order (repeated names included): for a reader that refuses repetition itself.
    var all: [(name: String, value: String)] { pairs }

    /// The first value given for `name`, or nil when the query has none. For the dashboard's own pages (a page
    /// number, a search), where a repeated name is harmless; the API reads its parameters with ``single(_:)``.
    subscript(_ name: String) -> String? { pairs.first { $0.name == name }?.value }

    /// The one value given for `name`, or nil when the query has none. A name given twice is refused
    /// (`field_invalid`): `?username=a&username=b` names two accounts, and a proxy, firewall or log in front of the
    /// server may read the other one than the server would.
    func single(_ name: String) throws(APIError) -> String? {
        var found: String?
        for pair in pairs where pair.name == name {
            guard found == nil else {
                throw APIError(.fieldInvalid, "The query string gives \(name) more than once: send it once.")
            }
            found = pair.value
        }
        return found
    }

    /// `+` as a space, `%XX` as the byte it names; a `%` without two hex digits stays as written. Bytes that are not
    /// UTF-8 become U+FFFD, which username checks refuse rather than store as some other name.
    static func decode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var input = text.utf8[...]
        while let byte = input.popFirst() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                if input.count >= 2, let high = hexValue(input[input.startIndex]),
                    let low = hexValue(input[input.index(after: input.startIndex)])
                {
                    bytes.append(UInt8(high << 4 | low))
                    input = input.dropFirst(2)
                } else {
                    bytes.append(byte)
                }
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An ASCII hex digit's value (bytes above ASCII are Latin-1 letters here, none of them a hex digit).
    static func hexValue(_ byte: UInt8) -> Int? { byte < 0x80 ? Character(Unicode.Scalar(byte)).hexDigitValue : nil }
}

extension Request {
    /// The query string, form-decoded (see ``FormQuery``).
    var formQuery: FormQuery { FormQuery(uri.query) }
}
