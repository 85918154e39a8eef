#if PASSKEY_APPLE_ADAPTER
#if canImport(AuthenticationServices)
public import AuthenticationServices
#else
public import AuthenticationServicesStandIn
#endif
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

extension AppleAuthenticator {
    /// The window to present the passkey sheet over in an app: the key window of a foreground scene, or else any window
    /// of one (on macOS the key, main or first visible window). For ``init(presentationAnchor:platform:log:)``:
    /// `AppleAuthenticator(presentationAnchor: { AppleAuthenticator.activeWindow() })`.
    ///
    /// Inactive foreground scenes count too: at launch the first view appears, and starts AutoFill, while its scene is
    /// still `.foregroundInactive`, and a request that finds no window fails before it starts. App extensions have no
    /// `UIApplication`: they pass their own view's window.
    @available(iOSApplicationExtension, unavailable)
    @available(macCatalystApplicationExtension, unavailable)
    @available(visionOSApplicationExtension, unavailable)
    @available(macOSApplicationExtension, unavailable)
    public static func activeWindow() -> ASPresentationAnchor? {
        #if canImport(UIKit)
        let windows = UIApplication.shared.connectedScenes
            .compactMap { $0 as? UIWindowScene }
            .filter { $0.activationState == .foregroundActive || $0.activationState == .foregroundInactive }
            .flatMap(\.windows)
        return windows.first(where: \.isKeyWindow) ?? windows.first
        #elseif canImport(AppKit)
        let application = NSApplication.shared
        return application.keyWindow ?? application.mainWindow ?? application.windows.first(where: \.isVisible)
        #else
        // Linux (the stand-in): no windows; the adapter is only type-checked there.
        return nil
        #endif
    }
}
#endif
