import ArgumentParser
import PasskeyVersion
import Foundation

/// `passkey`: register and sign in against passkey servers, inspect and verify WebAuthn responses, diagnose set-ups.
///
/// Exit status (every subcommand): 0 success, 1 the ceremony or verification was refused, 2 usage error or unreadable
/// input, 3 network error.
@main
struct PasskeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkey",
        abstract: "Verify, inspect and run WebAuthn (passkey) ceremonies.",
        discussion: """
            Exit status: 0 success, 1 refused (the server, the authenticator or the verifier said no), 2 usage error or \
            unreadable file, 3 network error.
            """,
        version: PasskeyVersion.description,
        subcommands: [
            RegisterCommand.self, LoginCommand.self, LinkCommand.self, AppendCommand.self, PasskeysCommand.self, CredentialsCommand.self, InspectCommand.self,
            VerifyCommand.self, BenchCommand.self, DoctorCommand.self,
        ]
    )

    /// Runs the command, mapping argument errors to exit status 2 (swift-argument-parser uses 64 by default).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            let status = exitCode(for: error)
            let message = fullMessage(for: error)
            if status == .success {
                print(message)
                Foundation.exit(0)
            }
            if jsonRequested(CommandLine.arguments.dropFirst()) {
                let body = CeremonyFailure.failureJSON(
                    error: "usage", stage: "arguments", message: self.message(for: error), detail: message)
                print(body.prettyPrinted())
            } else {
                FileHandle.standardError.write(Data((message + "\n").utf8))
            }
            Foundation.exit(CLIExit.usage.rawValue)
        }
    }
}

/// Whether `--json` is among the arguments (before a `--` that ends the options). A usage error happens before the
/// arguments are parsed into a command, so this is how it knows to answer in JSON, as every failure with --json does.
func jsonRequested(_ arguments: some Sequence<String>) -> Bool {
    for argument in arguments {
        if argument == "--" { return false }
        if argument == "--json" { return true }
    }
    return false
}

/// Documented exit statuses.
enum CLIExit: Int32 {
    case success = 0
    case refused = 1
    case usage = 2
    case network = 3
}

extension FileHandle {
    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
