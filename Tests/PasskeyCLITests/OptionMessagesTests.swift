import Foundation
import Testing

/// Numeric options: out-of-range values, negative ones included, get the range message; help shows each default once.
@Suite("passkey numeric options")
struct OptionMessagesTests {
    @Test("zero and negative values reach validation and get the range, with the value given (exit 2)")
    func ranges() throws {
        let cases: [([String], String)] = [
            (["bench", "--server", "http://localhost:1", "--duration", "0"], "--duration must be more than 0 and at most 3600 seconds, got 0"),
            (["bench", "--server", "http://localhost:1", "--duration", "-5"], "--duration must be more than 0 and at most 3600 seconds, got -5"),
            (["bench", "--server", "http://localhost:1", "--concurrency", "-1"], "--concurrency must be from 1 to 1024, got -1"),
            (["doctor", "--domain", "example.com", "--app-id", "ABCDE12345.com.example.app", "--timeout", "-1"],
             "--timeout must be more than 0 and at most 120 seconds, got -1"),
            (["doctor", "--domain", "example.com", "--app-id", "ABCDE12345.com.example.app", "--timeout", "0"],
             "--timeout must be more than 0 and at most 120 seconds, got 0"),
        ]
        for (arguments, message) in cases {
            let run = try CLIRun.run(arguments)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stderr.hasPrefix("Error: \(message)\n"), "\(run.stderr)")
        }
    }

    @Test("help shows each default once")
    func helpDefaults() throws {
        let bench = try CLIRun.run(["bench", "--help"]).stdout
        #expect(bench.contains("Concurrent workers. (default: 8)"), "\(bench)")
        #expect(bench.contains("Seconds to run. (default: 10.0)"), "\(bench)")
        #expect(!bench.contains("(default 8)") && !bench.contains("(default 10)") && !bench.contains("(default login)"))
        let doctor = try CLIRun.run(["doctor", "--help"]).stdout
        #expect(doctor.contains("Seconds to wait for each file. (default: 10.0)"), "\(doctor)")
        #expect(!doctor.contains("(default 10)"))
    }
}
