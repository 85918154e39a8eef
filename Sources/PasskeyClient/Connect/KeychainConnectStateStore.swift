#if canImport(Security)
import Foundation
import Security

/// Keeps ``ConnectState`` in the Keychain (Apple platforms): a generic password item readable after first unlock,
/// on this device only (never synced or restored to another device, where the one-tap account would be wrong).
public actor KeychainConnectStateStore: ConnectStateStore {
    public nonisolated let service: String
    public nonisolated let account: String

    public init(service: String = "passkey.connect", account: String = "state") {
        self.service = service
        self.account = account
    }

    private var query: [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: account]
    }

    public func load() -> ConnectState {
        var request = query
        request[kSecReturnData as String] = true
        request[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        guard SecItemCopyMatching(request as CFDictionary, &item) == errSecSuccess, let data = item as? Data else { return ConnectState() }
        return ConnectState(bytes: Array(data))
    }

    public func save(_ state: ConnectState) {
        let data = Data(state.json.serializedBytes)
        let attributes: [String: Any] = [
            kSecValueData as String: data, kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        if SecItemUpdate(query as CFDictionary, attributes as CFDictionary) == errSecItemNotFound {
            var add = query
            add.merge(attributes) { $1 }
            SecItemAdd(add as CFDictionary, nil)
        }
    }

    public func update(_ change: @Sendable (inout ConnectState) -> Void) async {
        var state = load()
        change(&state)
        save(state)
    }
}
#endif
