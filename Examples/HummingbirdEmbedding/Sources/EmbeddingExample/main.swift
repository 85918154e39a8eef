import Hummingbird
import PasskeyStorageSQLite

// The driver is chosen here, in the executable: SQLite in a file (PostgreSQL would be PasskeyStoragePostgres).
let repository = try SQLiteRepository(path: "passkeys.sqlite")
let router = buildRouter(repository: repository, origin: "http://localhost:8080", rpID: "localhost")
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 8080)))
try await app.runService()
