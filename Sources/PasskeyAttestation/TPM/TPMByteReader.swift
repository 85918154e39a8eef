import PasskeyCore

/// Reads the big-endian TPM 2.0 marshalling format (TPM 2.0 Part 2 §5), checking every length against what remains.
///
/// TPM structures are self-describing only through their sizes, so every read says what it was reading: the error
/// names the structure and field that was truncated.
struct TPMByteReader {
    let bytes: [UInt8]
    let structure: String
    private(set) var offset = 0

    init(_ bytes: [UInt8], structure: String) {
        self.bytes = bytes
        self.structure = structure
    }

    var remaining: Int { bytes.count - offset }
    var isAtEnd: Bool { offset == bytes.count }

    mutating func read(_ count: Int, _ field: String) throws(WebAuthnError) -> [UInt8] {
        guard count >= 0, count <= remaining else {
            throw WebAuthnError(
                .attestationInvalid, "tpm \(structure) is truncated at \(field)", expected: "\(count) bytes",
                received: "\(remaining) bytes")
        }
        let value = Array(bytes[offset..<(offset + count)])
        offset += count
        return value
    }

    mutating func uint16(_ field: String) throws(WebAuthnError) -> UInt16 {
        try read(MemoryLayout<UInt16>.size, field).reduce(0) { $0 << 8 | UInt16($1) }
    }

    mutating func uint32(_ field: String) throws(WebAuthnError) -> UInt32 {
        try read(MemoryLayout<UInt32>.size, field).reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func uint64(_ field: String) throws(WebAuthnError) -> UInt64 {
        try read(MemoryLayout<UInt64>.size, field).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A TPM2B: a 16-bit size followed by that many bytes (TPM 2.0 Part 2 §10.4).
    mutating func sized(_ field: String) throws(WebAuthnError) -> [UInt8] {
        let size = try uint16("\(field) size")
        return try read(Int(size), field)
    }

    /// Fails unless every byte was consumed: trailing bytes mean the structure was not what it claimed.
    func expectEnd() throws(WebAuthnError) {
        guard isAtEnd else {
            throw WebAuthnError(.attestationInvalid, "tpm \(structure) has \(remaining) unexpected trailing bytes")
        }
    }
}
