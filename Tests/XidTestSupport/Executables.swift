import Foundation

/// An executable product SwiftPM built for the tests (the `xid` tool, the refresh worker): it sits in
/// the build directory that holds the test bundle, or in one of that directory's parents.
///
/// - Returns: its URL, or a bare file name (which then fails to launch with a clear error) when it
///   was not built.
public func builtExecutable(named name: String) -> URL {
  var directory = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent()
  while directory.path != "/" {
    let candidate = directory.appendingPathComponent(name)
    if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    directory.deleteLastPathComponent()
  }
  return URL(fileURLWithPath: name)
}
