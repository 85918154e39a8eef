import ArgumentParser
import Foundation
import PasskeyRelyingParty
import PasskeyServer
import PasskeyStorage

/// `passkey-server webhooks`: manage signed webhook endpoints from a shell, the same changes as the backend API's
/// `/webhooks` and the dashboard's Webhooks section (docs/webhooks.md). Running servers see them at their next look at
/// the outbox (within a second).
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks", abstract: "Add, list, change, rotate and remove signed webhook endpoints, and see their deliveries.",
        subcommands: [List.self, Add.self, Update.self, Rotate.self, Remove.self, Deliveries.self, Retry.self])

    static func endpoints(_ root: PasskeyServerCommand) async throws -> WebhookEndpoints {
        WebhookEndpoints(repository: try await openStorage(root, mustExist: true), receivers: try root.webhookReceiverPolicy())
    }

    /// Puts the change in the dashboard's event log, as the dashboard's own changes are (never with the secret).
    static func record(_ action: String, _ detail: String, _ endpoints: WebhookEndpoints) async {
        guard let repository = endpoints.repository as? any PasskeyRepository else { return }
        await recordCommand(action, detail, in: repository)
    }

    static func line(_ endpoint: WebhookEndpointRecord) -> String {
        let types = endpoint.eventTypes.isEmpty ? "every event" : endpoint.eventTypes.joined(separator: ",")
        let state = endpoint.disabledAt == nil ? "enabled" : "disabled"
        let description = endpoint.description.isEmpty ? "" : "  \"\(UsersCommand.visible(endpoint.description))\""
        // Escaped too: an endpoint saved before URLs were read strictly may hold characters a terminal acts on.
        return "\(endpoint.id)  \(UsersCommand.visible(endpoint.url))  \(types)  \(state)\(description)"
    }

    /// Runs `body`, saying a refusal in the library's words.
    static func refusing<T>(_ body: () async throws(RelyingPartyError) -> T) async throws -> T {
        do { return try await body() } catch { throw CommandFailure("\(error.message) (\(error.code))") }
    }

    static func eventTypes(_ text: String?) -> [String]? {
        text.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
    }

    static let typesHelp = ArgumentHelp(
        "Event types, comma-separated (default: every type): \(WebhookEventType.all.map(\.rawValue).joined(separator: ", ")).")

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List endpoints: id, URL, event types, enabled or disabled, description.", usage: databaseUsage("webhooks list"),
            discussion: databaseDiscussion())
        @ParentCommand var root: PasskeyServerCommand

        func run() async throws {
            let endpoints = try await WebhooksCommand.endpoints(root)
            let all = try await WebhooksCommand.refusing { () async throws(RelyingPartyError) in try await endpoints.list() }
            if all.isEmpty { say("no webhook endpoints") }
            for endpoint in all { say(WebhooksCommand.line(endpoint)) }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an endpoint and print its signing secret (whsec_…), shown only now.",
            usage: databaseUsage("webhooks add <url> [--events <types>] [--description <text>]"),
            discussion: databaseDiscussion("The URL must be https:// to a public host (private networks and http:// only when allowed: --webhook-allow-network, --webhook-allow-host). Receivers check each message's webhook-signature with the secret, as the Standard Webhooks libraries do."))
        @ParentCommand var root: PasskeyServerCommand
        @Argument(help: "Where messages are POSTed.") var url: String
        @Option(help: WebhooksCommand.typesHelp) var events: String?
        @Option(help: "What the endpoint is for (at most 200 characters).") var description: String = ""

        func run() async throws {
            let endpoints = try await WebhooksCommand.endpoints(root)
            let endpoint = try await WebhooksCommand.refusing { () async throws(RelyingPartyError) in
                try await endpoints.create(url: url, description: description, eventTypes: WebhooksCommand.eventTypes(events) ?? [])
            }
            await WebhooksCommand.record("add_webhook", "webhook endpoint \(endpoint.id) added", endpoints)
            say(endpoint.secret)
            note("Added \(WebhooksCommand.line(endpoint))\nThe secret above signs its messages; it is not shown again (`webhooks rotate` makes a new one).")
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change an endpoint's URL, event types or description, or disable or enable it.",
            usage: databaseUsage("webhooks update <id> [--url <url>] [--events <types>] [--description <text>] [--disable|--enable]"),
            discussion: databaseDiscussion("A disabled endpoint gets no new messages; the pending ones wait until it is enabled again."))
        @ParentCommand var root: PasskeyServerCommand
        @Argument(help: "The endpoint's id (whe_…).") var id: String
        @Option(help: "A new URL.") var url: String?
        @Option(help: WebhooksCommand.typesHelp) var events: String?
        @Option(help: "A new description.") var description: String?
        @Flag(exclusivity: .exclusive, help: "Disable or enable it.") var state: State?

        enum State: String, EnumerableFlag {
            case disable, enable
        }

        func run() async throws {
            let endpoints = try await WebhooksCommand.endpoints(root)
            let endpoint = try await WebhooksCommand.refusing { () async throws(RelyingPartyError) in
                try await endpoints.update(
                    id: id, url: url, description: description, eventTypes: WebhooksCommand.eventTypes(events), enabled: state.map { $0 == .enable })
            }
            await WebhooksCommand.record("change_webhook", "webhook endpoint \(endpoint.id) changed", endpoints)
            say(WebhooksCommand.line(endpoint))
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give an endpoint a new signing secret and print it; the old one keeps signing beside it for the overlap.",
            usage: databaseUsage("webhooks rotate <id> [--overlap-hours <n>]"),
            discussion: databaseDiscussion("While both sign, each message carries two signatures, so the receiver can switch secrets without missing one. --overlap-hours 0 stops the old secret at once (it leaked)."))
        @ParentCommand var root: PasskeyServerCommand
        @Argument(help: "The endpoint's id (whe_…).") var id: String
        @Option(parsing: .unconditional, help: "Hours the old secret still signs, 0 to 168.") var overlapHours: Double = 24

        func run() async throws {
            let endpoints = try await WebhooksCommand.endpoints(root)
            let endpoint = try await WebhooksCommand.refusing { () async throws(RelyingPartyError) in
                try await endpoints.rotateSecret(id: id, overlap: overlapHours * 3600)
            }
            await WebhooksCommand.record("rotate_webhook", "webhook endpoint \(endpoint.id) has a new secret", endpoints)
            say(endpoint.secret)
            note("New secret for \(WebhooksCommand.line(endpoint)); it is not shown again.")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an endpoint and its pending deliveries.", usage: databaseUsage("webhooks remove <id>"), discussion: databaseDiscussion())
        @ParentCommand var root: PasskeyServerCommand
        @Argument(help: "The endpoint's id (whe_…).") var id: String

        func run() async throws {
            let endpoints = try await WebhooksCommand.endpoints(root)
            try await WebhooksCommand.refusing { () async throws(RelyingPartyError) in try await endpoints.delete(id: id) }
            await WebhooksCommand.record("remove_webhook", "webhook endpoint \(id) removed", endpoints)
            say("removed \(id)")
        }
    }

    struct Deliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List deliveries, newest first: message, type, state, attempts, last answer.",
            usage: databaseUsage("webhooks deliveries [<id>] [--limit <n>]"), discussion: databaseDiscussion())
        @ParentCommand var root: PasskeyServerCommand
        @Argument(help: "Only this endpoint's (default: every endpoint's).") var id: String?
        @Option(help: "At most this many, 1 to 200 (default 50).") var limit: Int = 50

        func run() async throws {
            guard (1...200).contains(limit) else { throw ValidationError("--limit must be 1 to 200") }
            let endpoints = try await WebhooksCommand.endpoints(root)
            let deliveries = try await WebhooksCommand.refusing { () async throws(RelyingPartyError) in
                try await endpoints.deliveries(endpointID: id, limit: limit)
            }
            if deliveries.isEmpty { say("no deliveries") }
            let formatter = ISO8601DateFormatter()
            for delivery in deliveries {
                let last = delivery.lastStatus.map { "HTTP \($0)" } ?? delivery.lastError.map(UsersCommand.visible) ?? "not tried yet"
                let next = delivery.state == .pending ? "  next \(formatter.string(from: delivery.nextAttemptAt))" : ""
                say(
                    "\(delivery.message.id)  \(delivery.endpointID)  \(delivery.message.type)  \(delivery.state.rawValue)  attempts \(delivery.attempts)  \(last)\(next)"
                )
            }
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send an endpoint's failed deliveries again, from now, in their order.", usage: databaseUsage("webhooks retry <id>"),
            discussion: databaseDiscussion())
        @ParentCommand var root: PasskeyServerCommand
        @Argument(help: "The endpoint's id (whe_…).") var id: String

        func run() async throws {
            let endpoints = try await WebhooksCommand.endpoints(root)
            let count = try await WebhooksCommand.refusing { () async throws(RelyingPartyError) in try await endpoints.retryFailed(id: id) }
            await WebhooksCommand.record("retry_webhook", "\(count) failed deliveries of \(id) sent again", endpoints)
            say("\(count) failed deliver\(count == 1 ? "y" : "ies") will be sent again")
        }
    }
}
