import Foundation
@testable import PasskeyServer
import PasskeyStorage
import Testing

@Suite("Admin ceremonies in progress")
struct AdminCeremoniesTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func pending(_ purpose: AdminCeremonies.Purpose, expiresIn seconds: TimeInterval = 60, from base: Date = start) -> AdminCeremonies.Pending {
        .init(challenge: "c", purpose: purpose, expiresAt: base.addingTimeInterval(seconds))
    }

    @Test("a flood of sign-in ceremonies pushes out only the oldest sign-in, never a passkey check or a setup")
    func floodKeepsAuthorizedCeremonies() async {
        let ceremonies = AdminCeremonies()
        await ceremonies.put("recheck", Self.pending(.recheck(adminID: "a1", sessionHash: [1])), now: Self.start)
        await ceremonies.put("first-sign-in", Self.pending(.signIn), now: Self.start)
        for index in 0..<10_000 { await ceremonies.put("flood-\(index)", Self.pending(.signIn), now: Self.start) }
        #expect(await ceremonies.take("recheck", now: Self.start) != nil)
        #expect(await ceremonies.take("first-sign-in", now: Self.start) == nil, "the oldest sign-in went at capacity")
        #expect(await ceremonies.take("flood-9999", now: Self.start) != nil)
    }

    @Test("a ceremony is taken once, and not after it expired")
    func singleUseAndExpiry() async {
        let ceremonies = AdminCeremonies()
        await ceremonies.put("a", Self.pending(.signIn, expiresIn: 60), now: Self.start)
        await ceremonies.put("b", Self.pending(.signIn, expiresIn: 60), now: Self.start)
        #expect(await ceremonies.take("a", now: Self.start) != nil)
        #expect(await ceremonies.take("a", now: Self.start) == nil)
        #expect(await ceremonies.take("b", now: Self.start.addingTimeInterval(61)) == nil)
        // Expired ones are dropped as new ones come, so the pool does not fill with them.
        for index in 0..<20_000 {
            let now = Self.start.addingTimeInterval(Double(index))
            await ceremonies.put("late-\(index)", Self.pending(.signIn, expiresIn: 60, from: now), now: now)
        }
        #expect(await ceremonies.take("late-19990", now: Self.start.addingTimeInterval(19_999)) != nil)
    }
}
