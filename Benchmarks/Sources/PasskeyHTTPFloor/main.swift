// passkey-http-floor: the HTTP edge's floor, for passkey-operator-bench --http-floor (docs/benchmarks.md).
//
// Hummingbird on its defaults with nothing of this project's: no middleware, no channel handler, no log line, one
// route answering the bytes passkey-server answers for GET /.well-known/webauthn, and /health for the bench's start
// check. What it costs per request is what any server built on Hummingbird 2 and SwiftNIO pays on this machine before
// doing any work of its own.
import Hummingbird

var port = 8080
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--port", let value = arguments.popFirst().flatMap({ Int($0) }) { port = value }
}
let router = Router()
let document = ByteBuffer(string: #"{"origins":["http://localhost:\#(port)"]}"#)
router.get(".well-known/webauthn") { _, _ in
    Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: document))
}
router.get("health") { _, _ in
    Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#)))
}
let application = Application(router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)))
try await application.runService()
