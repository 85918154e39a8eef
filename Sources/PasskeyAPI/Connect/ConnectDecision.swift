public import PasskeyWire

/// A rollout decision: what to do (`step`) and why (`reason`), stable strings an app switches on.
public struct ConnectDecision: JSONRepresentable, Hashable {
    /// Append: `ask`, `auto` or `skip`. Login: `one-tap`, `text-field` or `fallback`.
    public var step: String
    public var reason: String

    public init(step: String, reason: String) {
        self.step = step
        self.reason = reason
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        step = try reader.string("step")
        reason = try reader.string("reason")
    }

    public var json: JSONValue { ["step": .string(step), "reason": .string(reason)] }
}
