import PasskeyAuthenticationServices
import PasskeyClient
import Testing

/// On Linux, PasskeyAuthenticationServices compiles against AuthenticationServicesStandIn (declarations only): that
/// this file builds is the check that the adapter still matches Apple's API as the stand-in declares it. Nothing
/// here calls into AuthenticationServices; the stand-in's bodies would trap.
@Suite("Apple adapter type-check")
struct AdapterTypeCheckTests {
    @Test("AppleAuthenticator is an Authenticator, main-actor isolated, and plans for the platform it is given")
    @MainActor
    func conformance() async {
        let authenticator = AppleAuthenticator(presentationAnchor: { nil }, platform: .iOS(18))
        let seam: any Authenticator = authenticator
        let capabilities = await seam.capabilities()
        #expect(
            capabilities
                == AuthenticatorCapabilities(
                    isSupported: true, isPlatformAuthenticatorAvailable: true, supportsConditionalMediation: true, supportsConditionalCreate: true))
        let mac = AppleAuthenticator(presentationAnchor: { nil }, platform: .macOS(15))
        #expect(await mac.capabilities().supportsConditionalMediation == false)
        #expect(await mac.capabilities().supportsConditionalCreate == true)
        let iOS17 = AppleAuthenticator(presentationAnchor: { nil }, platform: .iOS(17))
        #expect(await iOS17.capabilities().supportsConditionalCreate == false, "conditional create arrived in iOS 18")
    }

    @Test("a request that cannot run here fails from the plan, before any AuthenticationServices call")
    @MainActor
    func failsBeforeTheController() async {
        let authenticator = AppleAuthenticator(presentationAnchor: { nil }, platform: .macOS(15))
        let request = AssertionRequest(options: Options.request(), mediation: .conditional)
        let result: Result<Void, PasskeyError>
        do throws(PasskeyError) {
            _ = try await authenticator.getAssertion(request)
            result = .success(())
        } catch {
            result = .failure(error)
        }
        #expect(result.error?.code == .notSupported)
        // Unusable options, then no window: both refused before any request object or controller exists.
        let noWindow = AppleAuthenticator(presentationAnchor: { nil }, platform: .iOS(18))
        var errors: [PasskeyError] = []
        for options in [Options.request(rpID: nil), Options.request()] {
            do throws(PasskeyError) {
                _ = try await noWindow.getAssertion(AssertionRequest(options: options))
            } catch {
                errors.append(error)
            }
        }
        #expect(errors.map(\.code) == [.invalidOptions, .internalError])
        #expect(errors.last?.reason.contains("no presentation anchor") == true)
        #expect(errors.last?.recovery == .retry, "no window yet (a view appearing at launch): the app tries again, nothing to report")
    }

    @Test("a task cancelled before the request starts ends with cancelled, before any window or controller is asked for")
    @MainActor
    func cancelledBeforeStart() async {
        let anchorAsked = Flag()
        let authenticator = AppleAuthenticator(presentationAnchor: { anchorAsked.set(); return nil }, platform: .iOS(18))
        // Created and cancelled on the main actor before it can run: deterministic.
        let task = Task { @MainActor () -> PasskeyError? in
            do throws(PasskeyError) {
                _ = try await authenticator.getAssertion(AssertionRequest(options: Options.request()))
                return nil
            } catch {
                return error
            }
        }
        task.cancel()
        let error = await task.value
        #expect(error?.code == .cancelled && error?.stage == .authenticator)
        #expect(!anchorAsked.value)
    }
}

@MainActor
private final class Flag: Sendable {
    private(set) var value = false
    func set() { value = true }
}
