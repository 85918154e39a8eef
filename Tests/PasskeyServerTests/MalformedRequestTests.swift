import Foundation
import Hummingbird
import HummingbirdTesting
import PasskeyServer
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Bytes that are not HTTP/1.1 get the same JSON error as any other bad request, and never two answers to one request.
@Suite("Requests that are not HTTP")
struct MalformedRequestTests {
    /// The status lines of the responses in `answer`, in order (a body without a final line break runs straight into
    /// the next response's status line).
    static func statusLines(_ answer: String) -> [String] {
        // "\r\n" is one Character in a Swift String.
        answer.matches(of: /HTTP\/1\.1 \d{3} [A-Za-z ]+\r\n/).map { String(answer[$0.range].dropLast()) }
    }

    @Test("a garbled request line or header is 400 request_malformed in JSON, and the connection closes", arguments: [
        "GARBAGE\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: localhost\r\nthis line has no colon\r\n\r\n",
        "GET / HTTP/9.9.9\r\nHost: localhost\r\n\r\n",
        "\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}\u{01}\u{fc}\u{03}\u{03}",  // a TLS ClientHello sent to the plain-HTTP port
        "BREW / HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "POST /verify-authentication HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n{}",
    ])
    func garbled(bytes: String) async throws {
        let capture = LogCapture()
        try await withLiveServer(logger: capture.logger) { port in
            let answer = try await onOwnThread { RawConnection.exchange(port: port, bytes) }
            #expect(Self.statusLines(answer) == ["HTTP/1.1 400 Bad Request"], "\(answer)")
            let lowered = answer.lowercased()
            #expect(lowered.contains("content-type: application/json; charset=utf-8"), "\(answer)")
            #expect(lowered.contains("connection: close"), "\(answer)")
            // The security headers of every answer, though no route answered.
            for header in ["referrer-policy: no-referrer", "x-frame-options: deny", "cross-origin-opener-policy: same-origin", "content-security-policy: default-src 'none'"] {
                #expect(lowered.contains(header), "\(header): \(answer)")
            }
            #expect(answer.hasSuffix(#"{"error":"request_malformed","message":"The request is not valid HTTP/1.1."}"#), "\(answer)")
            // No route saw it, and it is still logged with the request id the answer carries.
            let id = try #require(Self.requestID(in: answer), "\(answer)")
            #expect(capture.lines.contains { $0.hasPrefix("notice request ") && $0.contains("request_id=\(id)") && $0.contains("error=request_malformed") && $0.contains("status=400") }, "\(capture.lines)")
        }
    }

    /// The `X-Request-Id` of a raw answer: a new UUID.
    static func requestID(in answer: String) -> String? {
        answer.lowercased().firstMatch(of: /\r\nx-request-id: ([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})\r\n/).map { String($0.1) }
    }

    @Test("a request line or header section over the limits is 431 request_headers_too_large in JSON, and the connection closes",
        arguments: [
            "GET /health?q=" + String(repeating: "a", count: 100_000) + " HTTP/1.1\r\nHost: localhost\r\n\r\n",
            "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: " + String(repeating: "a", count: 100_000) + "\r\n\r\n",
            "GET /health HTTP/1.1\r\nHost: localhost\r\n" + (0..<5_000).map { "x\($0): y\r\n" }.joined() + "\r\n",
        ])
    func tooLarge(bytes: String) async throws {
        try await withLiveServer { port in
            let answer = try await onOwnThread { RawConnection.exchange(port: port, bytes) }
            #expect(Self.statusLines(answer) == ["HTTP/1.1 431 Request Header Fields Too Large"], "\(answer.prefix(300))")
            #expect(answer.lowercased().contains("connection: close"), "\(answer.prefix(300))")
            #expect(answer.contains(#"{"error":"request_headers_too_large","#), "\(answer.prefix(300))")
        }
    }

    @Test("800 small header fields are still served")
    func manySmallHeaders() async throws {
        try await withLiveServer { port in
            let request = "GET /health HTTP/1.1\r\nHost: localhost\r\n" + (0..<800).map { "x\($0): y\r\n" }.joined() + "Connection: close\r\n\r\n"
            let answer = try await onOwnThread { RawConnection.exchange(port: port, request) }
            #expect(Self.statusLines(answer) == ["HTTP/1.1 200 OK"], "\(answer.prefix(300))")
        }
    }

    @Test("after a good request on the same connection, the good one is answered first, then the garbage")
    func pipelined() async throws {
        try await withLiveServer { port in
            let answer = try await onOwnThread {
                RawConnection.exchange(port: port, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\nNOT HTTP AT ALL\r\n\r\n")
            }
            #expect(Self.statusLines(answer) == ["HTTP/1.1 200 OK", "HTTP/1.1 400 Bad Request"], "\(answer)")
            let health = try #require(answer.range(of: #""status":"ok""#), "\(answer)")
            let malformed = try #require(answer.range(of: "request_malformed"), "\(answer)")
            #expect(health.lowerBound < malformed.lowerBound)
        }
    }

    @Test("a request pipelined before one announcing a body over the limit keeps its answer, ahead of the 413")
    func pipelinedBeforeTooLarge() async throws {
        let repository = InMemoryRepository()
        let key = try await Administration.createAPIKey(name: "backend", repository: repository).secret
        try await withLiveServer(repository: repository, { $0.webhooks.resolver = StaticHostResolver() }) { port in
            let body = #"{"url":"https://hooks.example.com/pipelined"}"#
            let create = "POST /webhooks HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(key)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            let tooLarge = "POST /verify-authentication HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\n\r\n"
            // One write: the second head arrives while the first request is being answered.
            let answer = try await onOwnThread { RawConnection.exchange(port: port, create + tooLarge) }
            #expect(Self.statusLines(answer).map { String($0.prefix(12)) } == ["HTTP/1.1 200", "HTTP/1.1 413"], "\(answer)")
            let secret = try #require(answer.range(of: "whsec_"), "the endpoint's one-time secret was delivered: \(answer)")
            let refusal = try #require(answer.range(of: "request_too_large"), "\(answer)")
            #expect(secret.lowerBound < refusal.lowerBound)
            #expect(try await repository.webhookEndpoints().map(\.url) == ["https://hooks.example.com/pipelined"])
            // Three requests, then the refusal: every answer in order, the refusal last.
            let health = "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"
            let three = try await onOwnThread { RawConnection.exchange(port: port, health + health + health + tooLarge) }
            #expect(Self.statusLines(three).map { String($0.prefix(12)) } == ["HTTP/1.1 200", "HTTP/1.1 200", "HTTP/1.1 200", "HTTP/1.1 413"], "\(three)")
            // An interim 100 Continue keeps the order too: after the answer owed before it.
            let expecting = "POST /verify-authentication HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}"
            let interim = try await onOwnThread { RawConnection.exchange(port: port, health + expecting) }
            #expect(Self.statusLines(interim).map { String($0.prefix(12)) } == ["HTTP/1.1 200", "HTTP/1.1 100", "HTTP/1.1 400"], "\(interim)")
            // Alone, the refusal is at once, as before.
            let alone = try await onOwnThread { RawConnection.exchange(port: port, tooLarge) }
            #expect(Self.statusLines(alone).map { String($0.prefix(12)) } == ["HTTP/1.1 413"], "\(alone)")
        }
    }

    @Test("after a request that closes the connection or asks to switch protocols, it closes: nothing pipelined behind is refused or left hanging", arguments: [
        "GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", "GET /health HTTP/1.0\r\n\r\n",
        "GET /health HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
        "GET /health HTTP/1.1\r\nHost: localhost\r\nUpgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n",
    ])
    func closingRequestThenMore(first: String) async throws {
        try await withLiveServer { port in
            let answer = try await onOwnThread {
                // Without closing our side: the server must close the connection itself (the read bounds a hang at 20 s).
                guard let socket = RawConnection.open(port: port, sending: first + "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n", limit: 20) else {
                    return (received: "", closedByServer: false)
                }
                defer { close(socket) }
                return RawConnection.readUntilClosed(socket)
            }
            let statuses = answer.received.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/1.") }
            #expect(statuses.count == 1 && statuses.first?.hasSuffix("200 OK") == true, "one answer, the first request's: \(answer.received)")
            #expect(!answer.received.contains("request_malformed"), "\(answer.received)")
            #expect(answer.closedByServer, "the connection closed: \(answer.received)")
            #expect(answer.received.lowercased().contains("connection: close"), "\(answer.received)")
        }
    }

    @Test("a broken chunk inside a body is answered once, by the handler reading the body")
    func brokenChunk() async throws {
        try await withLiveServer { port in
            let answer = try await onOwnThread {
                RawConnection.exchange(
                    port: port,
                    "POST /verify-authentication HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n")
            }
            #expect(Self.statusLines(answer) == ["HTTP/1.1 400 Bad Request"], "\(answer)")
            #expect(answer.contains("request_malformed") && !answer.contains("request_incomplete"), "\(answer)")
            // A route that answers without reading the body has answered: no second response follows.
            let unread = try await onOwnThread {
                RawConnection.exchange(port: port, "GET /health HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n")
            }
            #expect(Self.statusLines(unread) == ["HTTP/1.1 200 OK"], "\(unread)")
        }
    }

    @Test("a request that does not keep the connection open is answered and the connection closes", arguments: [
        "GET /health HTTP/1.0\r\nHost: localhost\r\n\r\n",
        "GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: Close\r\n\r\n",
        "GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive, close\r\n\r\n",
        // NIO sends the answer to a CONNECT without a body or a length: only the connection's end delimits it.
        "CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\n",
    ])
    func closingRequest(bytes: String) async throws {
        try await withLiveServer { port in
            // The sending side stays open: the server must close on its own, not because the client did.
            let (answer, closed) = try await onOwnThread { () -> (String, Bool) in
                guard let socket = RawConnection.open(port: port, sending: bytes, limit: 15) else { return ("", false) }
                defer { close(socket) }
                return RawConnection.readUntilClosed(socket)
            }
            #expect(Self.statusLines(answer) == [bytes.hasPrefix("CONNECT") ? "HTTP/1.1 404 Not Found" : "HTTP/1.1 200 OK"], "\(answer)")
            #expect(answer.lowercased().contains("connection: close\r\n"), "\(answer)")
            #expect(closed, "the connection stayed open after the answer")
        }
    }

    @Test("an HTTP/1.0 request that asks to keep the connection is told it stays open, and it does")
    func http10KeepAlive() async throws {
        try await withLiveServer { port in
            let request = "GET /health HTTP/1.0\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n"
            // Two answers on the connection, then a third request on it once they came: answered too, so it stayed
            // open (no waiting for a timeout to tell, which a loaded machine could make flaky).
            let answer = try await onOwnThread { () -> String in
                guard let socket = RawConnection.open(port: port, sending: request + request, limit: 20) else { return "" }
                defer { close(socket) }
                var text = RawConnection.read(socket, untilCount: 2, of: #""status":"ok""#)
                _ = request.withCString { send(socket, $0, strlen($0), 0) }
                text += RawConnection.read(socket, untilCount: 1, of: #""status":"ok""#)
                return text
            }
            #expect(Self.statusLines(answer) == ["HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.1 200 OK"], "\(answer)")
            #expect(answer.lowercased().components(separatedBy: "connection: keep-alive\r\n").count == 4, "\(answer)")
        }
    }

    @Test("a streamed answer to an HTTP/1.0 client is not chunked: it is sent as it is, and the closing connection ends it",
        arguments: ["", "Connection: keep-alive\r\n"])
    func http10StreamedAnswer(connection: String) async throws {
        let token = String(repeating: "t", count: 32)
        try await withLiveServer({ $0.dashboard.adminToken = token }) { port in
            let request = "GET /dashboard/events/stream?max=1&result=failure HTTP/1.0\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n\(connection)\r\n"
            let (answer, closed) = try await onOwnThread { () -> (String, Bool) in
                guard let socket = RawConnection.open(port: port, sending: request, limit: 15) else { return ("", false) }
                defer { close(socket) }
                var text = RawConnection.read(socket, untilCount: 1, of: ": connected\n\n")
                // A failed ceremony: the one event the stream waits for.
                _ = RawConnection.exchange(
                    port: port, "POST /verify-registration HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
                let (rest, closed) = RawConnection.readUntilClosed(socket)
                text += rest
                return (text, closed)
            }
            #expect(answer.hasPrefix("HTTP/1.0 200 OK\r\n"), "\(answer)")
            let lowered = answer.lowercased()
            #expect(!lowered.contains("transfer-encoding"), "\(answer)")
            #expect(lowered.contains("connection: close\r\n"), "\(answer)")
            // The body as the route wrote it: no chunk sizes between the lines.
            let body = try #require(answer.components(separatedBy: "\r\n\r\n").dropFirst().first, "\(answer)")
            #expect(body.hasPrefix(": connected\n\nid: "), "\(answer)")
            #expect(body.contains("\nevent: ceremony\ndata: {"), "\(answer)")
            #expect(body.hasSuffix("}\n\n"), "\(answer)")
            #expect(closed, "the connection stayed open after the stream ended")
        }
    }

    @Test("a body over the limit sent without Expect gets 413 and the connection closes at once, the rest of the body unread")
    func tooLargeClosesConnection() async throws {
        try await withLiveServer({ $0.maximumBodySize = 1_000 }) { port in
            let head = "POST /verify-authentication HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n"
            // Part of the body, then nothing: without the close the connection waited for the rest until the idle timeout.
            let (answer, closed) = try await onOwnThread { () -> (String, Bool) in
                // Reads time out after 10 s, far below the 75 s idle timeout: closed by then means closed by the 413.
                guard let socket = RawConnection.open(port: port, sending: head + String(repeating: "x", count: 1_500), limit: 10) else {
                    return (received: "", closedByServer: false)
                }
                defer { close(socket) }
                return RawConnection.readUntilClosed(socket)
            }
            #expect(Self.statusLines(answer) == ["HTTP/1.1 413 Payload Too Large"], "\(answer)")
            #expect(answer.lowercased().contains("connection: close"), "\(answer)")
            #expect(answer.hasSuffix(#"{"error":"request_too_large","message":"The request body is larger than 1000 bytes."}"#), "\(answer)")
            #expect(closed, "the connection stayed open after the 413")
            // Announced over the limit and nothing sent: refused from the head, not after the request deadline.
            let (announced, announcedClosed) = try await onOwnThread { () -> (String, Bool) in
                let big = "POST /verify-authentication HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n"
                guard let socket = RawConnection.open(port: port, sending: big, limit: 10) else { return ("", false) }
                defer { close(socket) }
                return RawConnection.readUntilClosed(socket)
            }
            #expect(Self.statusLines(announced) == ["HTTP/1.1 413 Payload Too Large"] && announcedClosed, "\(announced)")
        }
    }

    @Test("Expect: 100-continue gets 100 Continue before the body is sent; a body announced over the limit gets 413 at once")
    func expectContinue() async throws {
        let capture = LogCapture()
        try await withLiveServer(logger: capture.logger, { $0.maximumBodySize = 1_000 }) { port in
            let head = "POST /generate-authentication-options HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n"
            // The body goes only after the 100 came: the server must say it without waiting for the body.
            let answer = try await onOwnThread { () -> String in
                guard let socket = RawConnection.open(port: port, sending: head + "Content-Length: 2\r\n\r\n", limit: 10) else { return "" }
                defer { close(socket) }
                var text = RawConnection.read(socket, untilCount: 1, of: "\r\n\r\n")
                guard text.hasPrefix("HTTP/1.1 100 Continue\r\n") else { return text }
                _ = "{}".withCString { send(socket, $0, 2, 0) }
                text += RawConnection.read(socket, untilCount: 1, of: #""challengeKey""#)
                return text
            }
            #expect(answer.hasPrefix("HTTP/1.1 100 Continue\r\n\r\n"), "\(answer)")
            #expect(Self.statusLines(answer).last == "HTTP/1.1 200 OK", "\(answer)")
            // Too large: refused before the body comes, and the connection closes.
            let (refused, closed) = try await onOwnThread { () -> (String, Bool) in
                guard let socket = RawConnection.open(port: port, sending: head + "Content-Length: 5000\r\n\r\n", limit: 10) else { return ("", false) }
                defer { close(socket) }
                return RawConnection.readUntilClosed(socket)
            }
            #expect(Self.statusLines(refused) == ["HTTP/1.1 413 Payload Too Large"], "\(refused)")
            #expect(refused.lowercased().contains("referrer-policy: no-referrer"), "\(refused)")
            let id = try #require(Self.requestID(in: refused), "\(refused)")
            let logged = capture.lines.filter { $0.contains("request_id=\(id)") }
            #expect(logged.count == 1 && logged.first?.contains("status=413") == true && logged.first?.contains("error=request_too_large") == true, "\(capture.lines)")
            #expect(logged.first?.contains("method=POST") == true && logged.first?.contains("path=/generate-authentication-options") == true, "\(logged)")
            #expect(refused.hasSuffix(#"{"error":"request_too_large","message":"The request body is larger than 1000 bytes."}"#), "\(refused)")
            #expect(closed)
            // HTTP/1.0 knows no 100 Continue: the expectation is ignored and the request answered once its body came.
            let old = try await onOwnThread {
                RawConnection.exchange(
                    port: port,
                    "POST /generate-authentication-options HTTP/1.0\r\nHost: localhost\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}")
            }
            #expect(!old.contains("100 Continue") && old.contains("challengeKey"), "\(old)")
        }
    }
    @Test("a head that breaks HTTP's framing rules is refused with its own code, in its turn on the connection", arguments: [
        ("GET /health HTTP/1.1\r\nConnection: close\r\n\r\n",
            "HTTP/1.1 400 Bad Request", #"{"error":"request_malformed","message":"An HTTP/1.1 request needs a Host header."}"#),
        ("GET /health HTTP/1.1\r\nHost: localhost\r\nHost: example.com\r\nConnection: close\r\n\r\n",
            "HTTP/1.1 400 Bad Request", #"{"error":"request_malformed","message":"A request has one Host header, not several."}"#),
        ("POST /verify-authentication HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: gzip, chunked\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
            "HTTP/1.1 400 Bad Request", #""error":"transfer_coding_unsupported""#),
        ("POST /verify-authentication HTTP/1.1\r\nHost: localhost\r\nContent-Encoding: gzip\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
            "HTTP/1.1 415 Unsupported Media Type", #""error":"content_encoding_unsupported""#),
    ])
    func framingRules(bytes: String, status: String, body: String) async throws {
        try await withLiveServer { port in
            let answer = try await onOwnThread { RawConnection.exchange(port: port, bytes) }
            #expect(Self.statusLines(answer) == [status], "\(answer)")
            #expect(answer.contains(body), "\(answer)")
            #expect(answer.lowercased().contains("content-type: application/json"), "\(answer)")
            if status.contains("415") { #expect(answer.lowercased().contains("accept-encoding: identity\r\n"), "\(answer)") }
            // After a good request on the same connection: answered in order.
            let pipelined = try await onOwnThread {
                RawConnection.exchange(port: port, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n" + bytes)
            }
            #expect(Self.statusLines(pipelined) == ["HTTP/1.1 200 OK", status], "\(pipelined)")
        }
    }

    @Test("what the framing rules allow is served: HTTP/1.0 without Host, identity coding, and a client's own copy of the internal mark", arguments: [
        "GET /health HTTP/1.0\r\n\r\n",
        "GET /health HTTP/1.1\r\nHost: localhost\r\nContent-Encoding: identity\r\nConnection: close\r\n\r\n",
        "GET /health HTTP/1.1\r\nHost: localhost\r\npasskey-framing-refusal: missing-host\r\nConnection: close\r\n\r\n",
        "GET /health HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: Chunked\r\nConnection: close\r\n\r\n0\r\n\r\n",
    ])
    func framingAllowed(bytes: String) async throws {
        try await withLiveServer { port in
            let answer = try await onOwnThread { RawConnection.exchange(port: port, bytes) }
            #expect(Self.statusLines(answer) == ["HTTP/1.1 200 OK"], "\(answer)")
            #expect(answer.contains(#""status":"ok""#), "\(answer)")
        }
    }
}
