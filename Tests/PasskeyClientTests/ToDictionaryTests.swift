import Foundation
import PasskeyClient
import PasskeyWire
import Testing

@Suite("toDictionary(): wire types as Foundation objects for JSONSerialization")
struct ToDictionaryTests {
    @Test("a credential round-trips through JSONSerialization unchanged: names, base64url strings, null, whole numbers")
    func roundTrip() throws {
        let text = #"""
            {"id":"AQID","rawId":"AQID","type":"public-key","authenticatorAttachment":"platform",
             "response":{"clientDataJSON":"eyJ0eXBlIjoid2ViYXV0aG4uZ2V0In0","authenticatorData":"SZYN5YgO","signature":"MEUCIQ","userHandle":"dXNlcg"},
             "clientExtensionResults":{"credProps":{"rk":true},"count":3,"ratio":0.5,"none":null}}
            """#
        let credential = try AuthenticationResponseJSON(json: try JSONValue.parse(text))
        let dictionary = credential.toDictionary()
        #expect(dictionary["id"] as? String == "AQID" && dictionary["type"] as? String == "public-key")
        let response = try #require(dictionary["response"] as? [String: Any])
        #expect(response["userHandle"] as? String == "dXNlcg")
        let extensions = try #require(dictionary["clientExtensionResults"] as? [String: Any])
        #expect(extensions["count"] as? Int == 3 && extensions["ratio"] as? Double == 0.5 && extensions["none"] is NSNull)
        #expect((extensions["credProps"] as? [String: Any])?["rk"] as? Bool == true)
        // As PasskeymeSDK's reference sends it: inside a body built with JSONSerialization, read back by the server's parser.
        let body = try JSONSerialization.data(withJSONObject: ["assertion": dictionary, "username": NSNull()])
        let parsed = try #require(try JSONValue.parse(Array(body)).objectValue)
        // Foundation dictionaries have no order: the same members, each with the same value.
        let sent = try AuthenticationResponseJSON(json: try #require(parsed["assertion"]))
        #expect(sent.id == credential.id && sent.rawId == credential.rawId && sent.response == credential.response)
        #expect(sent.authenticatorAttachment == credential.authenticatorAttachment && sent.type == credential.type)
        #expect(sent.clientExtensionResults.count == credential.clientExtensionResults.count)
        for (name, value) in credential.clientExtensionResults { #expect(sent.clientExtensionResults[name] == value, "\(name)") }
        #expect(parsed["username"] == .null)
    }
}
