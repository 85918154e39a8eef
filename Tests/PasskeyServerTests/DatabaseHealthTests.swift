import Foundation
import Logging
@testable import PasskeyServer
import Synchronization
import Testing

@Suite("Health check of the database")
struct DatabaseHealthTests {
    /// Whether a check ran to its end.
    final class Finished: Sendable {
        let value = Mutex(false)
    }

    @Test("a database that does not answer loses the race: the probe returns at the deadline, not when the check ends")
    func deadline() async {
        let finished = Finished()
        let answered = await DatabaseHealth.race(.milliseconds(50)) {
            try? await Task.sleep(for: .seconds(30))
            finished.value.withLock { $0 = true }
        }
        #expect(!answered)
        #expect(!finished.value.withLock { $0 }, "the probe answered before the check ended")
        #expect(await DatabaseHealth.race(.seconds(5)) {})
        #expect(await !DatabaseHealth.race(.seconds(5)) { throw CancellationError() }, "a failing check is unreachable")
    }

    @Test("a change of state is logged once: warning when the database goes, notice when it is back")
    func stateChanges() async {
        let up = Mutex(true)
        let health = DatabaseHealth { if !up.withLock({ $0 }) { throw CancellationError() } }
        let capture = LogCapture()
        #expect(await health.probe(logger: capture.logger))
        up.withLock { $0 = false }
        #expect(await !health.probe(logger: capture.logger))
        #expect(await !health.probe(logger: capture.logger))
        up.withLock { $0 = true }
        #expect(await health.probe(logger: capture.logger))
        let lines = capture.lines
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.hasPrefix("warning health: the database is unreachable") == true, "\(lines)")
        #expect(lines.last?.hasPrefix("notice health: the database is reachable again") == true, "\(lines)")
    }
}
