import SwiftUI

@main
struct PasskeyExampleApp: App {
    var body: some Scene {
        WindowGroup {
            ContentView()
        }
    }
}
