import Foundation

/// A new, empty folder under the system's temporary directory, named `<prefix>-<UUID>`, for one test's files.
public func temporaryFolder(_ prefix: String) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
}
