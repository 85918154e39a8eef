import PasskeyClient
import Testing

@Suite("ResumeOnce")
struct ResumeOnceTests {
    @Test("the first outcome is delivered; later ones (a late delegate callback after a cancel) are dropped, not a crash")
    func firstWins() async {
        let recorder = Outcomes()
        let value = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            var once = ResumeOnce(continuation)
            recorder.pendingBefore = once.isPending
            recorder.delivered.append(once.resume(returning: "cancelled by the app"))
            recorder.delivered.append(once.resume(returning: "delegate: canceled (1001)"))
            recorder.delivered.append(once.resume(returning: "delegate: credential"))
            recorder.pendingAfter = once.isPending
        }
        #expect(value == "cancelled by the app")
        #expect(recorder.delivered == [true, false, false])
        #expect(recorder.pendingBefore == true && recorder.pendingAfter == false)
    }

    @Test("resumed from another task, as a delegate callback on the main actor would")
    func fromAnotherTask() async {
        let value = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            Task { @MainActor in
                var once = ResumeOnce(continuation)
                once.resume(returning: 42)
                once.resume(returning: 7)
            }
        }
        #expect(value == 42)
    }
}

/// Collects what happened inside the continuation's body (which runs synchronously on the caller).
private final class Outcomes: @unchecked Sendable {
    var delivered: [Bool] = []
    var pendingBefore: Bool?
    var pendingAfter: Bool?
}
