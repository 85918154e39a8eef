/// One HTTP exchange with the relying-party server, described without any HTTP library's types.
public struct RelyingPartyRequest: Sendable, Hashable {
    public enum Method: String, Sendable, Hashable {
        case get = "GET"
        case post = "POST"
        case patch = "PATCH"
        case delete = "DELETE"
    }

    public var method: Method
    /// The path relative to the server's base URL, without a leading slash: `generate-registration-options`.
    public var path: String
    /// Query parameters, in order; values are not yet percent-encoded.
    public var query: [QueryItem]
    /// A JSON body (sent with `Content-Type: application/json`), or `nil`.
    public var body: [UInt8]?
    /// The `Authorization` header value (`Bearer <connect token>`), or `nil`. A secret: never logged.
    public var authorization: String?

    public struct QueryItem: Sendable, Hashable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(method: Method, path: String, query: [QueryItem] = [], body: [UInt8]? = nil, authorization: String? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.authorization = authorization
    }

    /// `path?name=value&…`, percent-encoded (RFC 3986 unreserved characters stay as they are).
    public var pathAndQuery: String {
        guard !query.isEmpty else { return path }
        return path + "?" + query.map { "\(Self.percentEncode($0.name))=\(Self.percentEncode($0.value))" }.joined(separator: "&")
    }

    static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 0x0f)])
            }
        }
        return out
    }
}

/// The server's answer: any status, with its body. Non-2xx statuses are answers, not transport failures.
public struct RelyingPartyResponse: Sendable, Hashable {
    public var status: Int
    public var body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// How the client reaches the relying-party server. ``URLSessionRelyingPartyTransport`` speaks HTTP; tests plug in an
/// in-process one that calls the server's router directly.
///
/// Implementations throw only transport failures, already as ``PasskeyError`` with stage `network`:
/// ``PasskeyError/Code/network`` (unreachable, refused, TLS, DNS), ``PasskeyError/Code/timeout`` and
/// ``PasskeyError/Code/cancelled`` (the awaiting task was cancelled). Any HTTP answer, error statuses included, is
/// returned as a ``RelyingPartyResponse``.
public protocol RelyingPartyTransport: Sendable {
    func send(_ request: RelyingPartyRequest) async throws(PasskeyError) -> RelyingPartyResponse
}
