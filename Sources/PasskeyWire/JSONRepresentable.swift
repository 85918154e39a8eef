/// A WebAuthn wire type that reads from and writes to ``JSONValue``.
///
/// Reading goes through our strict parser and reports a ``WireError`` that names the member;
/// `Codable` conformance is derived from it, so a server framework's `JSONDecoder` gives the same result.
public protocol JSONRepresentable: Sendable, Codable {
    init(json: JSONValue) throws(WireError)
    var json: JSONValue { get }
}

extension JSONRepresentable {
    /// Parses a JSON document (UTF-8 bytes).
    public init(jsonBytes: [UInt8]) throws(WireError) {
        let value: JSONValue
        do { value = try JSONValue.parse(jsonBytes) } catch {
            throw WireError(.jsonMalformed, field: nil, error.description)
        }
        try self.init(json: value)
    }

    /// Parses a JSON document.
    public init(jsonString: String) throws(WireError) {
        try self.init(jsonBytes: Array(jsonString.utf8))
    }

    /// Compact JSON text.
    public var jsonString: String { json.serialized() }

    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        try self.init(json: value)
    }

    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}

/// Reads members of one JSON object and names the path of whatever is wrong.
public struct JSONObjectReader: Sendable {
    public let object: JSONObject
    public let path: String

    public init(_ value: JSONValue, path: String = "") throws(WireError) {
        guard case .object(let object) = value else {
            throw WireError(.fieldInvalid, field: path.isEmpty ? nil : path, "expected an object, found \(value.typeName)")
        }
        self.object = object
        self.path = path
    }

    public func fieldPath(_ name: String) -> String { path.isEmpty ? name : "\(path).\(name)" }

    /// The member, treating JSON `null` as absent (browsers' `toJSON()` omits absent members, some libraries send null).
    public func value(_ name: String) -> JSONValue? {
        guard let v = object[name], !v.isNull else { return nil }
        return v
    }

    public func required(_ name: String) throws(WireError) -> JSONValue {
        guard let v = value(name) else { throw WireError(.fieldMissing, field: fieldPath(name), "required member is missing") }
        return v
    }

    public func string(_ name: String) throws(WireError) -> String {
        let v = try required(name)
        guard case .string(let s) = v else {
            throw WireError(.fieldInvalid, field: fieldPath(name), "expected a string, found \(v.typeName)")
        }
        return s
    }

    public func optionalString(_ name: String) throws(WireError) -> String? {
        guard let v = value(name) else { return nil }
        guard case .string(let s) = v else {
            throw WireError(.fieldInvalid, field: fieldPath(name), "expected a string, found \(v.typeName)")
        }
        return s
    }

    public func optionalInt(_ name: String) throws(WireError) -> Int? {
        guard let v = value(name) else { return nil }
        guard let i = v.intValue else {
            throw WireError(.fieldInvalid, field: fieldPath(name), "expected an integer, found \(v.typeName)")
        }
        return i
    }

    public func int(_ name: String) throws(WireError) -> Int {
        guard let i = try optionalInt(name) else { throw WireError(.fieldMissing, field: fieldPath(name), "required member is missing") }
        return i
    }

    public func optionalBool(_ name: String) throws(WireError) -> Bool? {
        guard let v = value(name) else { return nil }
        guard case .bool(let b) = v else {
            throw WireError(.fieldInvalid, field: fieldPath(name), "expected a boolean, found \(v.typeName)")
        }
        return b
    }

    public func bool(_ name: String) throws(WireError) -> Bool {
        guard let b = try optionalBool(name) else { throw WireError(.fieldMissing, field: fieldPath(name), "required member is missing") }
        return b
    }

    public func optionalObject(_ name: String) throws(WireError) -> JSONObject? {
        guard let v = value(name) else { return nil }
        guard case .object(let o) = v else {
            throw WireError(.fieldInvalid, field: fieldPath(name), "expected an object, found \(v.typeName)")
        }
        return o
    }

    public func optionalArray<T>(_ name: String, _ transform: (JSONValue, String) throws(WireError) -> T) throws(WireError) -> [T]? {
        guard let v = value(name) else { return nil }
        guard case .array(let items) = v else {
            throw WireError(.fieldInvalid, field: fieldPath(name), "expected an array, found \(v.typeName)")
        }
        var result: [T] = []
        result.reserveCapacity(items.count)
        for (i, item) in items.enumerated() { result.append(try transform(item, "\(fieldPath(name))[\(i)]")) }
        return result
    }

    public func strings(_ name: String) throws(WireError) -> [String] {
        let items = try optionalArray(name) { (item, path) throws(WireError) -> String in
            guard case .string(let s) = item else { throw WireError(.fieldInvalid, field: path, "expected a string, found \(item.typeName)") }
            return s
        }
        guard let items else { throw WireError(.fieldMissing, field: fieldPath(name), "required member is missing") }
        return items
    }

    /// A member that is a document of its own type, its errors named by their path from here.
    public func optional<T: JSONRepresentable>(_ name: String, as: T.Type) throws(WireError) -> T? {
        guard let v = value(name) else { return nil }
        do throws(WireError) { return try T(json: v) } catch { throw error.within(fieldPath(name)) }
    }

    public func required<T: JSONRepresentable>(_ name: String, as type: T.Type) throws(WireError) -> T {
        guard let t = try optional(name, as: type) else { throw WireError(.fieldMissing, field: fieldPath(name), "required member is missing") }
        return t
    }

    /// An array member of documents of one type.
    public func array<T: JSONRepresentable>(_ name: String, of: T.Type) throws(WireError) -> [T] {
        let items = try optionalArray(name) { (item, path) throws(WireError) -> T in
            do throws(WireError) { return try T(json: item) } catch { throw error.within(path) }
        }
        guard let items else { throw WireError(.fieldMissing, field: fieldPath(name), "required member is missing") }
        return items
    }

    public func optionalStrings<T: RawRepresentable>(_ name: String, as: T.Type) throws(WireError) -> [T]? where T.RawValue == String {
        try optionalArray(name) { (item, path) throws(WireError) -> T in
            guard case .string(let s) = item, let t = T(rawValue: s) else {
                throw WireError(.fieldInvalid, field: path, "expected a string, found \(item.typeName)")
            }
            return t
        }
    }

    public func optionalEnum<T: RawRepresentable>(_ name: String, as: T.Type) throws(WireError) -> T? where T.RawValue == String {
        guard let s = try optionalString(name) else { return nil }
        guard let t = T(rawValue: s) else { throw WireError(.fieldInvalid, field: fieldPath(name), "unexpected value \"\(s)\"") }
        return t
    }
}

/// Builds a JSON object, leaving out members whose value is nil.
public struct JSONObjectBuilder {
    public private(set) var object = JSONObject()
    public init() {}
    public mutating func set(_ name: String, _ value: JSONValue?) {
        if let value { object[name] = value }
    }
    public mutating func set(_ name: String, _ value: String?) { set(name, value.map(JSONValue.string)) }
    public mutating func set(_ name: String, _ value: Int?) { set(name, value.map { JSONValue.number(Double($0)) }) }
    public mutating func set(_ name: String, _ value: Bool?) { set(name, value.map(JSONValue.bool)) }
    public mutating func set<T: RawRepresentable>(_ name: String, _ value: T?) where T.RawValue == String {
        set(name, value.map { JSONValue.string($0.rawValue) })
    }
    public mutating func set<T: RawRepresentable>(_ name: String, _ values: [T]?) where T.RawValue == String {
        set(name, values.map { JSONValue.array($0.map { .string($0.rawValue) }) })
    }
    public mutating func set<T: JSONRepresentable>(_ name: String, _ value: T?) { set(name, value?.json) }
    public mutating func set<T: JSONRepresentable>(_ name: String, _ values: [T]?) {
        set(name, values.map { JSONValue.array($0.map(\.json)) })
    }
    public var value: JSONValue { .object(object) }
}

/// Any JSON document is one: what a route that passes a document through answers with (the OpenAPI document, the
/// well-known files), beside the API's typed answers.
extension JSONValue: JSONRepresentable {
    public init(json: JSONValue) { self = json }
    public var json: JSONValue { self }
}
