// PASSKEY_APPLE_ADAPTER is defined (Package.swift) on iOS, macOS, Mac Catalyst and visionOS, where AuthenticationServices
// has the passkey providers, and on Linux, where this target compiles against the declaration-only
// AuthenticationServicesStandIn so CI type-checks it. tvOS and watchOS lack the providers: the target is empty there.
#if PASSKEY_APPLE_ADAPTER
import Foundation
public import PasskeyClient

extension ApplePlatform {
    /// The system this process runs on. Mac Catalyst counts as macOS, with the version `ProcessInfo` reports.
    public static var current: ApplePlatform {
        let v = ProcessInfo.processInfo.operatingSystemVersion
        let version = Version(v.majorVersion, v.minorVersion, v.patchVersion)
        #if os(visionOS)
        return ApplePlatform(.visionOS, version)
        #elseif os(macOS) || targetEnvironment(macCatalyst)
        return ApplePlatform(.macOS, version)
        #else
        return ApplePlatform(.iOS, version)
        #endif
    }
}
#endif
