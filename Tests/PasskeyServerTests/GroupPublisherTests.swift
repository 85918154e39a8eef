import Foundation
import PasskeyStorage
@testable import PasskeyServer
import Testing

/// Collects what it is given, in order.
actor CollectingSink: EventSink {
    private(set) var received: [Int64] = []
    func publish(_ event: EventRecord) { received.append(event.id) }
}

@Suite("Group publisher")
struct GroupPublisherTests {
    @Test("events handed over one by one from a storage thread all reach the sink, in order")
    func inOrder() async throws {
        let sink = CollectingSink()
        let publisher = GroupPublisher(sink: sink)
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        let thread = Thread {
            for id in 1...500 { publisher.publish(EventRecord(id: Int64(id), time: time, kind: "authentication.verify", result: .success)) }
        }
        thread.start()
        for _ in 0..<200 where await sink.received.count < 500 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await sink.received == (1...500).map(Int64.init))
    }
}
