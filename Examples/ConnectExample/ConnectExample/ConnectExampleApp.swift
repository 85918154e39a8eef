import SwiftUI

@main
struct ConnectExampleApp: App {
    @State private var model = ConnectModel()

    var body: some Scene {
        WindowGroup {
            NavigationStack {
                switch model.session {
                case nil: LoginView(model: model)
                case .some: AccountView(model: model)
                }
            }
        }
    }
}
