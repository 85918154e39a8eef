import PasskeyStorage
import Testing

@Suite("GeneratedUsername: the names the server gives, and the shape nobody else may take")
struct GeneratedUsernameTests {
    @Test("made and legacy names: 12 and 6 bytes of the handle, base64url")
    func forms() {
        let handle: [UInt8] = Array(1...16)
        #expect(GeneratedUsername.make(userHandle: handle) == "anonymous-AQIDBAUGBwgJCgsM")
        #expect(GeneratedUsername.legacy(userHandle: handle) == "anonymous-AQIDBAUG")
        #expect(GeneratedUsername.isGenerated("anonymous-AQIDBAUG", userHandle: handle))
        #expect(GeneratedUsername.isGenerated("anonymous-AQIDBAUGBwgJCgsM", userHandle: handle))
        #expect(!GeneratedUsername.isGenerated("anonymous-AQIDBAUH", userHandle: handle), "another handle's name")
    }

    @Test("reserved: the prefix and 8 or more base64url characters, in any case; one thing off and it is anyone's")
    func reserved() {
        #expect(GeneratedUsername.isReserved("anonymous-AQIDBAUG"))
        #expect(GeneratedUsername.isReserved("ANONYMOUS-aqidbaug"), "compared without case")
        #expect(GeneratedUsername.isReserved("anonymous-Ab-_0123"), "- and _ are base64url")
        #expect(GeneratedUsername.isReserved("anonymous-AQIDBAUGBwgJCgsM"))
        #expect(!GeneratedUsername.isReserved("anonymous-AQIDBAU"), "7 characters")
        #expect(!GeneratedUsername.isReserved("anonymous-coward"), "7 characters")
        #expect(!GeneratedUsername.isReserved("anonymous-AQIDBAU."), "a dot is not base64url")
        #expect(!GeneratedUsername.isReserved("anonymous-ann@example"), "@ is not base64url")
        #expect(!GeneratedUsername.isReserved("anonymousAQIDBAUG"), "no hyphen")
        #expect(!GeneratedUsername.isReserved("my-anonymous-AQIDBAUG"), "not at the start")
    }
}
