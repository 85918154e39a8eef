public import PasskeyWire

/// `GET /health`: `ok` with a reachable database (200), `unavailable` without (503), for load balancers and monitors.
public struct HealthAnswer: JSONRepresentable, Hashable {
    public var status: String
    /// `ok` or `unreachable`.
    public var database: String

    public static let healthy = HealthAnswer(status: "ok", database: "ok")
    public static let databaseUnreachable = HealthAnswer(status: "unavailable", database: "unreachable")

    public init(status: String, database: String) {
        self.status = status
        self.database = database
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        status = try reader.string("status")
        database = try reader.string("database")
    }

    public var json: JSONValue { ["status": .string(status), "database": .string(database)] }
}
