import ArgumentParser
import Foundation
import PasskeyAPI
import PasskeyClient
import PasskeySoftwareAuthenticator
import PasskeyWire

/// `passkey bench`: a load generator that runs whole ceremonies (options, signing, verification) against a server,
/// with one software authenticator per concurrent worker, and reports ceremonies per second and latency percentiles.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run full passkey ceremonies against a server and report throughput and latency.",
        discussion: """
            Each worker has its own software authenticator (synced-passkey style, counter 0) and runs ceremonies back to \
            back: `register` creates anonymous accounts, `login` signs in without a username with a passkey registered \
            first (not timed), `both` alternates. A ceremony is timed from the options request to the verified answer.

            The server throttles options requests per client (60 a minute by default): start it with \
            `--options-per-minute 1000000` for a load test. Rate-limited ceremonies count as failures and are reported.

            Exit status: 0 every ceremony succeeded, 1 some were refused, 2 usage error, 3 the server could not be reached.
            """
    )

    enum Ceremony: String, ExpressibleByArgument, CaseIterable {
        case register, login, both
    }

    @OptionGroup var server: ServerOptions
    // Numbers are parsed `.unconditional` so a negative value ("-5") reaches validate() and gets the range message,
    // instead of being taken for an option ("Missing value for '--duration'").
    @Option(name: .long, parsing: .unconditional, help: "Concurrent workers.") var concurrency = 8
    @Option(name: .long, parsing: .unconditional, help: "Seconds to run.") var duration: Double = 10
    @Option(name: .long, help: "Which ceremonies to run.") var ceremony: Ceremony = .login
    @Flag(name: .long, help: "Print one JSON object instead of text.") var json = false

    func validate() throws {
        guard (1...1024).contains(concurrency) else { throw ValidationError("--concurrency must be from 1 to 1024, got \(concurrency)") }
        guard duration > 0, duration <= 3600 else {
            throw ValidationError("--duration must be more than 0 and at most 3600 seconds, got \(JSONValue.number(duration).serialized())")
        }
    }

    func run() async throws {
        let url = try server.serverURL()
        let origin = try server.originPolicy()
        let workers = (0..<concurrency).map { _ in
            PasskeyAuthClient(
                serverURL: url,
                authenticator: SoftwareAuthenticator(configuration: .syncedPasskey(origin: origin)),
                timeout: 30)
        }
        // Sign-ins need a passkey: register one per worker first (not timed).
        if ceremony != .register {
            for client in workers {
                do { _ = try await client.register(username: nil, displayName: nil) } catch {
                    throw CeremonyFailure.report(error, command: "bench", json: json, explanation: "could not register the passkeys to sign in with: \(server.explanation(for: error) ?? CeremonyFailure.defaultExplanation(error))")
                }
            }
        }

        let stats = BenchStatistics()
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start.advanced(by: .milliseconds(Int(duration * 1000)))
        let progress = json ? nil : Task {
            while !Task.isCancelled {
                // Cancelled while asleep: stop without one more line after the summary's line break.
                guard (try? await Task.sleep(for: .seconds(1))) != nil else { return }
                let snapshot = await stats.snapshot()
                let elapsed = (clock.now - start).seconds
                FileHandle.standardError.write(Data(String(
                    format: "\r  %5.1fs  %8d ok  %6d failed  %8.0f ceremonies/s   ", elapsed, snapshot.succeeded, snapshot.failed,
                    Double(snapshot.succeeded) / max(elapsed, 0.001)).utf8))
            }
        }
        let plan = ceremony
        await withTaskGroup(of: Void.self) { group in
            for (index, client) in workers.enumerated() {
                group.addTask {
                    var iteration = index
                    while clock.now < deadline {
                        let registerNow = plan == .register || (plan == .both && iteration % 2 == 0)
                        iteration += 1
                        let began = clock.now
                        do throws(PasskeyError) {
                            if registerNow {
                                _ = try await client.register(username: nil, displayName: nil)
                            } else {
                                _ = try await client.authenticate(username: nil)
                            }
                            await stats.succeeded(registerNow ? "register" : "login", after: clock.now - began)
                        } catch {
                            await stats.failed(error.server?.code.rawValue ?? error.code.rawValue, network: CeremonyFailure.exitStatus(for: error) == .network)
                            if CeremonyFailure.exitStatus(for: error) == .network { return }
                        }
                    }
                }
            }
        }
        progress?.cancel()
        await progress?.value
        if !json { FileHandle.standardError.write(Data("\n".utf8)) }
        let elapsed = (clock.now - start).seconds
        let report = await stats.report(elapsed: elapsed)
        if json {
            var object: JSONObject = ["ok": .bool(report.failed == 0)]
            for (name, value) in report.json { object[name] = value }
            object["server"] = .string(url.absoluteString)
            object["concurrency"] = .number(Double(concurrency))
            object["ceremony"] = .string(ceremony.rawValue)
            print(JSONValue.object(object).prettyPrinted())
        } else {
            print(report.text(server: url.absoluteString, concurrency: concurrency, ceremony: ceremony.rawValue))
        }
        if report.succeeded == 0, report.networkFailures > 0 { throw ExitCode(CLIExit.network.rawValue) }
        if report.failed > 0 { throw ExitCode(CLIExit.refused.rawValue) }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}

/// Results collected by the workers.
actor BenchStatistics {
    private var latencies: [String: [Double]] = [:]
    private var failures: [String: Int] = [:]
    private var networkFailures = 0

    func succeeded(_ ceremony: String, after duration: Duration) { latencies[ceremony, default: []].append(duration.seconds * 1000) }

    func failed(_ code: String, network: Bool) {
        failures[code, default: 0] += 1
        if network { networkFailures += 1 }
    }

    func snapshot() -> (succeeded: Int, failed: Int) {
        (latencies.values.reduce(0) { $0 + $1.count }, failures.values.reduce(0, +))
    }

    struct Report {
        struct Line {
            let ceremony: String
            let count: Int
            let rate: Double
            let p50: Double
            let p90: Double
            let p99: Double
        }

        let elapsed: Double
        let lines: [Line]
        let failures: [String: Int]
        let networkFailures: Int

        var succeeded: Int { lines.filter { $0.ceremony == "all" }.first?.count ?? 0 }
        var failed: Int { failures.values.reduce(0, +) }

        var json: JSONObject {
            var object = JSONObject()
            object["seconds"] = .number((elapsed * 1000).rounded() / 1000)
            object["succeeded"] = .number(Double(succeeded))
            object["failed"] = .number(Double(failed))
            var failureCounts = JSONObject()
            for (code, count) in failures.sorted(by: { $0.key < $1.key }) { failureCounts[code] = .number(Double(count)) }
            object["failures"] = .object(failureCounts)
            for line in lines {
                object[line.ceremony] = .object([
                    "count": .number(Double(line.count)), "perSecond": .number((line.rate * 10).rounded() / 10),
                    "p50Ms": .number((line.p50 * 100).rounded() / 100), "p90Ms": .number((line.p90 * 100).rounded() / 100),
                    "p99Ms": .number((line.p99 * 100).rounded() / 100),
                ])
            }
            return object
        }

        func text(server: String, concurrency: Int, ceremony: String) -> String {
            var out = ["passkey bench: \(server), \(concurrency) workers, \(ceremony), \(String(format: "%.1f", elapsed)) s", ""]
            out.append("ceremony        count    per second     p50 ms     p90 ms     p99 ms")
            for line in lines {
                out.append(
                    line.ceremony.padding(toLength: 12, withPad: " ", startingAt: 0)
                        + String(format: "%9d %13.1f %10.2f %10.2f %10.2f", line.count, line.rate, line.p50, line.p90, line.p99))
            }
            out.append("")
            out.append(failed == 0 ? "no failures" : "failures: " + failures.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))
            if failures[ErrorCode.rateLimited.rawValue] != nil {
                out.append("hint: the server throttles options requests; start it with --options-per-minute 1000000 for load tests")
            }
            return out.joined(separator: "\n")
        }
    }

    func report(elapsed: Double) -> Report {
        func percentile(_ sorted: [Double], _ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let index = min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)
            return sorted[max(0, index)]
        }
        func line(_ name: String, _ values: [Double]) -> Report.Line {
            let sorted = values.sorted()
            return Report.Line(
                ceremony: name, count: sorted.count, rate: Double(sorted.count) / max(elapsed, 0.001), p50: percentile(sorted, 0.5),
                p90: percentile(sorted, 0.9), p99: percentile(sorted, 0.99))
        }
        var lines = latencies.keys.sorted().map { line($0, latencies[$0] ?? []) }
        lines.append(line("all", latencies.values.flatMap { $0 }))
        return Report(elapsed: elapsed, lines: lines, failures: failures, networkFailures: networkFailures)
    }
}
