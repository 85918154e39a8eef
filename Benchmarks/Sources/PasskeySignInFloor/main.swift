// passkey-sign-in-floor: the least a sign-in with passkey-server's guarantees costs on its stack, for
// passkey-operator-bench --sign-in-floor (docs/benchmarks.md).
//
// Hummingbird on its defaults, swift-crypto, Foundation's Codable JSON and SQLite's C API, with nothing of this
// project's: the two routes of a sign-in, each doing only what the guarantees require. The options read the account's
// passkey IDs and answer a challenge sealed with an HMAC (no write); the verification checks the client data, the
// authenticator data and the signature, reads the passkey, records the challenge as spent and moves the counter in one
// durable transaction (synchronous=FULL, group-committed), and answers with an ES256 token. No middleware, no log
// line, no metrics, no events, no rate limit. What it costs per sign-in is a floor under any server on this stack that
// keeps the issue's guarantees; the difference to passkey-server is what passkey-server adds.
import Foundation
import Hummingbird

var port = 8080
var database = "floor.sqlite"
var accounts = 1_000
var publicKey: [UInt8] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    let value = arguments.popFirst() ?? ""
    switch argument {
    case "--port": port = Int(value) ?? port
    case "--database": database = value
    case "--accounts": accounts = Int(value) ?? accounts
    case "--public-key": publicKey = MinimalSignIn.bytes(value) ?? []
    default:
        print("usage: passkey-sign-in-floor --public-key BASE64URL(X9.63 P-256) [--port 8080] [--database floor.sqlite] [--accounts 1000]")
        exit(2)
    }
}
guard publicKey.count == 65 else {
    print("passkey-sign-in-floor: --public-key takes an uncompressed P-256 point (65 bytes), base64url")
    exit(2)
}

// Accounts named as passkey-operator-bench's Seeding names them, so its load generator signs in unchanged.
func bigEndian(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt64(value).bigEndian) { Array($0) } }
let store = try FloorDatabase(
    path: database, accounts: accounts, publicKey: publicKey, credentialID: { Array("pkbcred\u{0}".utf8) + bigEndian($0) },
    username: { "user" + String(format: "%07d", $0) })
let ceremony = MinimalSignIn(origin: "http://localhost:\(port)", rpID: "localhost")

enum Reply {
    static func milliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    static func json(_ data: Data, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func refusal(_ code: String) -> Response {
        json(Data(#"{"error":"\#(code)","message":"refused"}"#.utf8), status: .badRequest)
    }
}

let router = Router()
router.get("generate-authentication-options") { request, _ -> Response in
    let ids = try store.credentialIDs(username: request.uri.queryParameters["username"].map(String.init) ?? "")
    return Reply.json(try ceremony.options(credentialIDs: ids, now: Reply.milliseconds()))
}
router.post("verify-authentication") { request, _ -> Response in
    let body = try await request.body.collect(upTo: 64 * 1024)
    let now = Reply.milliseconds()
    do {
        let (parsed, authenticatorData, clientData, checked) = try ceremony.check(Data(buffer: body), now: now)
        guard let passkey = try store.passkey(id: checked.credentialID) else { return Reply.refusal("credential_unknown") }
        try ceremony.verifySignature(parsed, authenticatorData: authenticatorData, clientData: clientData, checked: checked, passkey: passkey)
        guard try await store.spend(nonce: checked.nonce, expiresAt: checked.expiresAt, credentialID: checked.credentialID, signCount: checked.signCount, now: now)
        else { return Reply.refusal("challenge_consumed") }
        return Reply.json(try ceremony.answer(checked, now: now))
    } catch let refused as MinimalSignIn.Refusal {
        return Reply.refusal(refused.code)
    }
}
router.get("health") { _, _ in Reply.json(Data(#"{"status":"ok"}"#.utf8)) }
let application = Application(router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)))
try await application.runService()
