import UIKit

/// The window the passkey sheet is presented over: the key window of a foreground scene, or else any window of one.
///
/// Not only active scenes: at launch, the first view appears (and starts AutoFill) while its scene is still
/// `.foregroundInactive`, and a request that finds no window fails before it starts.
enum KeyWindow {
    @MainActor
    static func current() -> UIWindow? {
        let windows = UIApplication.shared.connectedScenes
            .compactMap { $0 as? UIWindowScene }
            .filter { $0.activationState == .foregroundActive || $0.activationState == .foregroundInactive }
            .flatMap(\.windows)
        return windows.first(where: \.isKeyWindow) ?? windows.first
    }
}
