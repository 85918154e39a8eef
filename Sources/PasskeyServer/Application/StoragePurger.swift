import Foundation
import Logging
import PasskeyRelyingParty
import PasskeyStorage
import ServiceLifecycle

/// Removes expired challenges, tokens, retired keys, timed-out admin sessions, expired invites and events past their
/// retention every 30 seconds, so storage stays bounded. At shutdown it ends the live event streams, so open dashboard
/// tabs do not hold the server up.
struct ChallengePurger<Repository: PasskeyRepository>: Service {
    let repository: Repository
    let logger: Logger
    let dashboard: DashboardConfiguration
    let broadcaster: EventBroadcaster
    /// Where the expiry of unused recovery and onboarding links is reported (`link.expire`).
    let events: EventRecorder

    func run() async throws {
        await withGracefulShutdownHandler {
            await purgeLoop()
        } onGracefulShutdown: {
            Task { await broadcaster.close() }
        }
        await broadcaster.close()
    }

    func purgeLoop() async {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            // The wait ends at once when the server shuts down.
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(30)) }
            } catch { return }
            await broadcaster.keepAlive()
            do {
                let purged = try await repository.purgeExpiredChallenges(now: Date())
                if purged > 0 { logger.debug("purged expired challenges", metadata: ["count": "\(purged)"]) }
                // Unused links that expired are reported, one event each, before the other expired tokens go.
                let expiredLinks = try await repository.takeExpiredConnectTokens(types: ConnectTokenType.accountLinks.map(\.rawValue), now: Date())
                for link in expiredLinks { await events.record(Self.expiryEvent(link), logger: logger) }
                try await repository.purgeExpiredTokens(now: Date())
                try await repository.purgeOpenIDRecords(now: Date())
                try await repository.deleteRetiredSigningKeys(now: Date())
                let now = Date()
                try await repository.deleteEvents(olderThan: now.addingTimeInterval(-Double(dashboard.eventRetentionDays) * 86_400))
                // Delivered and failed webhook messages are kept as long as events, for the dashboard.
                try await repository.purgeWebhookDeliveries(before: now.addingTimeInterval(-Double(dashboard.eventRetentionDays) * 86_400))
                try await repository.purgeAdminSessions(
                    createdBefore: now.addingTimeInterval(-dashboard.sessionAbsoluteTimeout),
                    idleBefore: now.addingTimeInterval(-dashboard.sessionIdleTimeout), now: now)
            } catch {
                logger.warning("could not purge expired challenges", metadata: ["error": "\(error.code)"])
            }
        }
    }
}

extension ChallengePurger {
    /// The event of a recovery or onboarding link that expired unused: the account it was for, and when.
    static func expiryEvent(_ link: ConnectTokenRecord) -> EventRecord {
        let kind = link.type == ConnectTokenType.accountLinkReset.rawValue ? "recovery link (replacing the passkeys)" : "link"
        return EventRecord(
            time: link.expiresAt, kind: "link.expire", result: .success, explanation: "\(kind) expired unused", userID: link.userID)
    }
}
