public import Foundation

/// Runs blocking work (waiting for a child process, a socket read with a timeout) on a thread of its own and returns
/// its result: blocking one of Swift concurrency's few threads (two on a 2-core machine) would stall every other test
/// running in parallel, and time-bounded ones (storage deadlines) would fail for it.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Runs a program to completion and returns its exit status and what it wrote (stdout and stderr together).
/// Blocking: call it through ``onOwnThread(_:)`` from async tests.
///
/// After `timeout` seconds the program is terminated (a server that should have refused to start would otherwise hang
/// the test run); its status then says so (SIGTERM).
public func runProgram(
    _ executable: URL, _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 60
) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { if process.isRunning { process.terminate() } }
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}
