import PasskeyClient
import SwiftUI

/// One passkey: its name, where it lives and when it was last used.
struct PasskeyRow: View {
    let passkey: PasskeyInfo

    var body: some View {
        VStack(alignment: .leading) {
            Text(passkey.name)
            Group {
                if let provider = passkey.provider { Text(provider) }
                if let lastUsed = passkey.lastUsedAt {
                    Text("Last used \(lastUsed.formatted(.relative(presentation: .named)))")
                } else if let created = passkey.createdAt {
                    Text("Added \(created.formatted(date: .abbreviated, time: .omitted))")
                }
            }
            .font(.footnote).foregroundStyle(.secondary)
        }
    }
}
