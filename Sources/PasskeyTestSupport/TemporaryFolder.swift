public import Foundation

/// A new, empty folder under the system's temporary directory, named `<prefix>-<UUID>`, for one test's files.
public func temporaryFolder(_ prefix: String) throws -> String {
    try temporaryFolderURL(prefix).path
}

/// ``temporaryFolder(_:)`` as a file URL.
public func temporaryFolderURL(_ prefix: String) throws -> URL {
    let folder = temporaryPath(prefix)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// A path under the system's temporary directory that nothing uses yet, `<prefix>-<UUID>[.<extension>]`, and where
/// nothing is created: for a file a test writes, or a database or folder the code under test must create itself.
public func temporaryPath(_ prefix: String, extension pathExtension: String = "") -> URL {
    let name = "\(prefix)-\(UUID().uuidString)" + (pathExtension.isEmpty ? "" : ".\(pathExtension)")
    return FileManager.default.temporaryDirectory.appendingPathComponent(name)
}
