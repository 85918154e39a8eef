import PasskeyWire
import Testing
import Foundation

@Suite("JSON parser and the L3 wire types")
struct JSONTests {
    @Test("parses documents with escapes, unicode and numbers")
    func parses() throws {
        let value = try JSONValue.parse(#"{"a":[1,-2.5e3,true,false,null],"b":"\u00e9\ud83d\ude00\/\n","c":{}}"#)
        #expect(value.objectValue?["a"] == [1, .number(-2500), true, false, nil])
        #expect(value.objectValue?["b"] == .string("é😀/\n"))
        #expect(value.objectValue?["c"] == .object([:]))
    }

    @Test("a leading BOM is removed")
    func bom() throws {
        #expect(try JSONValue.parse([0xef, 0xbb, 0xbf] + Array(#"{"x":1}"#.utf8)) == .object(["x": 1]))
    }

    @Test("malformed documents are refused", arguments: [
        "", "{", "{\"a\":}", "{\"a\":1,}", "[1,]", "01", "1.", "-", "\"\\x\"", "\"\u{01}\"", "{\"a\":1}x", "{a:1}", "'a'",
        "\"\\ud800\"", "tru", "nul", "{\"a\":1,\"a\":2}", "1e999",
    ])
    func malformed(input: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(input) }
    }

    @Test("string scanning is exact at every offset around its 8-byte words")
    func stringScanOffsets() throws {
        for prefixLength in 0..<20 {
            let prefix = String(repeating: "a", count: prefixLength)
            #expect(try JSONValue.parse("\"\(prefix)\"") == .string(prefix))
            #expect(try JSONValue.parse("\"\(prefix)\\n\(prefix)\"") == .string(prefix + "\n" + prefix))
            #expect(try JSONValue.parse("\"\(prefix)é\(prefix)\"") == .string(prefix + "é" + prefix))
            #expect(try JSONValue.parse("\"\(prefix) !#~\(prefix)\"") == .string(prefix + " !#~" + prefix))
            #expect(throws: JSONParseError.self) { try JSONValue.parse("\"\(prefix)\u{1f}\(prefix)\"") }
            #expect(throws: JSONParseError.self) { try JSONValue.parse(Array("\"\(prefix)".utf8) + [0xff] + Array("\"".utf8)) }
            #expect(throws: JSONParseError.self) { try JSONValue.parse("\"\(prefix)") }
        }
    }

    @Test("invalid UTF-8 is refused")
    func invalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xc3, 0x28, 0x22]) }
    }

    @Test("nesting is bounded")
    func depth() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
    }

    @Test("serialisation round-trips")
    func roundTrip() throws {
        let value: JSONValue = .object(["s": "a\"b\\c\n\u{01}", "n": 42, "f": .number(1.5), "a": [true, nil], "o": .object(["k": "v"])])
        #expect(try JSONValue.parse(value.serialized()) == value)
        #expect(try JSONValue.parse(value.prettyPrinted()) == value)
    }

    @Test("RegistrationResponseJSON decodes what browsers send and names missing members")
    func registrationResponse() throws {
        let json = #"{"id":"AQID","rawId":"AQID","type":"public-key","response":{"clientDataJSON":"e30","attestationObject":"oA","transports":["internal","hybrid","future-transport"]},"clientExtensionResults":{"credProps":{"rk":true}},"authenticatorAttachment":"platform"}"#
        let r = try RegistrationResponseJSON(jsonString: json)
        #expect(r.rawId == "AQID" && r.response.transports == [.internal, .hybrid, "future-transport"])
        #expect(r.authenticatorAttachment == .platform)
        #expect(try RegistrationResponseJSON(json: r.json) == r)
        #expect(throws: WireError(.fieldMissing, field: "response.attestationObject", "")) {
            try RegistrationResponseJSON(jsonString: #"{"id":"AQID","type":"public-key","response":{"clientDataJSON":"e30"}}"#)
        }
        #expect(throws: WireError(.fieldInvalid, field: "id", "")) {
            try RegistrationResponseJSON(jsonString: #"{"id":1,"type":"public-key","response":{}}"#)
        }
        #expect(throws: WireError(.jsonMalformed, field: nil, "")) { try RegistrationResponseJSON(jsonString: "{") }
    }

    @Test("wire types work with Foundation's JSONDecoder too")
    func codable() throws {
        let json = #"{"id":"AQID","rawId":"AQID","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA","userHandle":"dXNlcg"},"clientExtensionResults":{}}"#
        let decoded = try JSONDecoder().decode(AuthenticationResponseJSON.self, from: Data(json.utf8))
        #expect(decoded.response.userHandle == "dXNlcg")
        let reencoded = try JSONDecoder().decode(AuthenticationResponseJSON.self, from: JSONEncoder().encode(decoded))
        #expect(reencoded == decoded)
    }

    @Test("creation options round-trip, unknown enum values survive")
    func creationOptions() throws {
        let options = PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: "example.com", name: "Example"), user: .init(id: "dQ", name: "ann", displayName: "Ann"),
            challenge: "Y2g", pubKeyCredParams: [.init(alg: .es256), .init(alg: 12345)], timeout: 60000,
            excludeCredentials: [.init(id: "AQ", transports: [.usb])],
            authenticatorSelection: .init(residentKey: .required, userVerification: "very-required"),
            hints: [.clientDevice], attestation: AttestationConveyancePreference.none, extensions: ["credProps": true])
        let decoded = try PublicKeyCredentialCreationOptionsJSON(jsonString: options.jsonString)
        #expect(decoded == options)
        #expect(decoded.pubKeyCredParams[1].alg.rawValue == 12345)
        #expect(decoded.authenticatorSelection?.userVerification?.rawValue == "very-required")
    }
}
