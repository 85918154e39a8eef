public import PasskeyWire

/// `GET /dashboard/api/stats`: totals, and ceremonies per hour for the last day.
public struct StatsAnswer: JSONRepresentable, Hashable {
    public var users: Int
    public var anonymousUsers: Int
    public var passkeys: Int
    public var admins: Int
    public var hours: [HourCount]

    /// One hour's ceremonies.
    public struct HourCount: JSONRepresentable, Hashable {
        /// ISO 8601, the hour's start.
        public var hour: String?
        public var registrations: Int
        public var signIns: Int
        public var failures: Int

        public init(hour: String?, registrations: Int, signIns: Int, failures: Int) {
            self.hour = hour
            self.registrations = registrations
            self.signIns = signIns
            self.failures = failures
        }

        public init(json: JSONValue) throws(WireError) {
            let reader = try JSONObjectReader(json)
            hour = try reader.optionalString("hour")
            registrations = try reader.int("registrations")
            signIns = try reader.int("signIns")
            failures = try reader.int("failures")
        }

        public var json: JSONValue {
            [
                "hour": hour.map(JSONValue.string) ?? .null, "registrations": .number(Double(registrations)), "signIns": .number(Double(signIns)),
                "failures": .number(Double(failures)),
            ]
        }
    }

    public init(users: Int, anonymousUsers: Int, passkeys: Int, admins: Int, hours: [HourCount]) {
        self.users = users
        self.anonymousUsers = anonymousUsers
        self.passkeys = passkeys
        self.admins = admins
        self.hours = hours
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        users = try reader.int("users")
        anonymousUsers = try reader.int("anonymousUsers")
        passkeys = try reader.int("passkeys")
        admins = try reader.int("admins")
        hours = try reader.array("hours", of: HourCount.self)
    }

    public var json: JSONValue {
        [
            "users": .number(Double(users)), "anonymousUsers": .number(Double(anonymousUsers)), "passkeys": .number(Double(passkeys)),
            "admins": .number(Double(admins)), "hours": .array(hours.map(\.json)),
        ]
    }
}
