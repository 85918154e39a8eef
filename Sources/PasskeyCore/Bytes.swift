import PasskeyWire
import Crypto

extension Array where Element == UInt8 {
    /// Lower-case hexadecimal, for messages.
    public var hexString: String {
        let digits: [UInt8] = Swift.Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(count * 2)
        for b in self {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xf)])
        }
        return String(decoding: out, as: UTF8.self)
    }

}

/// Constant-time comparison of two byte sequences (the length is not secret).
public func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for i in 0..<a.count { difference |= a[i] ^ b[i] }
    return difference == 0
}

/// Constant-time comparison of two strings' UTF-8 bytes (the length is not secret), without copying them.
func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    var difference: UInt8 = 0
    for (x, y) in zip(a.utf8, b.utf8) { difference |= x ^ y }
    return difference == 0
}

/// SHA-256 of bytes, as an array.
func sha256(_ bytes: [UInt8]) -> [UInt8] { SHA256.hash(data: bytes).withUnsafeBytes { Array($0) } }

/// Decodes a base64url member, naming it in the error.
func decodeBase64URL(_ string: String, field: String) throws(WebAuthnError) -> [UInt8] {
    guard let bytes = Base64URL.decode(string) else {
        throw WebAuthnError(.invalidBase64URL, "\(field) is not base64url", received: String(string.prefix(64)))
    }
    return bytes
}
