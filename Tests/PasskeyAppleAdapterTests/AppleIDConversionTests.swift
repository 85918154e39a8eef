import Foundation
import PasskeyClient
import Testing

@Suite("Sign in with Apple credential → AppleIDCredential")
struct AppleIDConversionTests {
    struct Values: AppleIDCredentialValues {
        var user = "001234.56789abcdef.0123"
        var state: String? = "s-1"
        var authorizationCode: Data? = Data("c1a2b3.0.rsw.QkFEQ09ERQ".utf8)
        var identityToken: Data? = Data("eyJraWQiOiJXNldjT0tCIiwiYWxnIjoiUlMyNTYifQ.eyJpc3MiOiJodHRwczovL2FwcGxlaWQuYXBwbGUuY29tIn0.c2ln".utf8)
        var email: String? = "x7q2@privaterelay.appleid.com"
        var fullName: PersonNameComponents? = {
            var name = PersonNameComponents()
            name.givenName = "Ann"
            name.familyName = "Lee"
            return name
        }()
        var authorizedScopeNames = ["full_name", "email"]
        var detectedUserStatus = AppleIDCredential.RealUserStatus.likelyReal
    }

    @Test("every member carried over; tokens as text; scopes as Apple's raw values")
    func carriedOver() throws {
        let credential = try AppleIDCredentialConversion.credential(Values())
        #expect(credential.user == "001234.56789abcdef.0123" && credential.state == "s-1")
        #expect(credential.identityToken?.hasPrefix("eyJraWQi") == true && credential.authorizationCode == "c1a2b3.0.rsw.QkFEQ09ERQ")
        #expect(credential.email == "x7q2@privaterelay.appleid.com" && credential.fullName?.givenName == "Ann")
        #expect(credential.authorizedScopes == [.fullName, .email] && credential.realUserStatus == .likelyReal)
    }

    @Test("a returning person: no name, no email, no tokens given as empty data")
    func returning() throws {
        var values = Values()
        values.email = nil
        values.fullName = nil
        values.authorizationCode = Data()
        values.authorizedScopeNames = []
        let credential = try AppleIDConversionTests.convert(values)
        #expect(credential.email == nil && credential.fullName == nil && credential.authorizationCode == nil && credential.authorizedScopes.isEmpty)
    }

    @Test("refused with exactly one thing wrong: no user, a token that is not printable ASCII")
    func refused() {
        var noUser = Values()
        noUser.user = ""
        #expect(Self.failure(noUser)?.code == .invalidResponse && Self.failure(noUser)?.reason.contains("user identifier") == true)
        var garbled = Values()
        garbled.identityToken = Data("eyJhbGciOiJSUzI1NiJ9.e30.c2ln".utf8) + Data([0xFF])
        #expect(Self.failure(garbled)?.code == .invalidResponse && Self.failure(garbled)?.reason.contains("identityToken") == true)
        var spaced = Values()
        spaced.authorizationCode = Data("c1a2b3 0".utf8)
        #expect(Self.failure(spaced)?.code == .invalidResponse && Self.failure(spaced)?.reason.contains("authorizationCode") == true)
    }

    @Test("descriptions never show a password, a token, a code or an email address")
    func redacted() throws {
        let credential = try AppleIDCredentialConversion.credential(Values())
        for text in ["\(credential)", String(reflecting: credential)] {
            #expect(!text.contains("eyJ") && !text.contains("c1a2b3") && !text.contains("privaterelay") && text.contains("001234"))
        }
        let password = PasswordCredential(user: "ann@example.com", password: "correct horse")
        #expect(!"\(password)".contains("correct") && "\(password)".contains("ann@example.com"))
        #expect(!String(reflecting: password).contains("correct"))
        // dump() and the debugger read the mirror: the secrets stay out of it too, as inside a result.
        for value in [password as Any, SignInResult.password(password), credential as Any, SignInResult.appleID(credential)] {
            var dumped = ""
            dump(value, to: &dumped)
            #expect(!dumped.contains("correct") && !dumped.contains("eyJ") && !dumped.contains("c1a2b3") && !dumped.contains("privaterelay"), "\(dumped)")
            #expect(!dumped.contains("Lee"), "the name is the person's: \(dumped)")
        }
    }

    static func convert(_ values: Values) throws(PasskeyError) -> AppleIDCredential { try AppleIDCredentialConversion.credential(values) }

    static func failure(_ values: Values) -> PasskeyError? {
        do { _ = try AppleIDCredentialConversion.credential(values) } catch { return error }
        return nil
    }
}
