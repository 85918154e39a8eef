import UIKit

/// The window the passkey sheet is presented over: the key window of the foreground scene.
enum KeyWindow {
    @MainActor
    static func current() -> UIWindow? {
        UIApplication.shared.connectedScenes
            .compactMap { $0 as? UIWindowScene }
            .filter { $0.activationState == .foregroundActive }
            .flatMap(\.windows)
            .first(where: \.isKeyWindow)
    }
}
