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

#if os(macOS) || os(Linux)
  /// What a finished process left: its exit status and its whole output.
  public struct ProcessRun: Sendable {
    /// The exit status.
    public var status: Int32
    /// Everything it wrote to standard output.
    public var standardOutput: String
    /// Everything it wrote to standard error.
    public var standardError: String
  }

  /// Runs `executable` with `arguments` and no standard input, and waits for it to exit without
  /// blocking a thread. Its output goes through temporary files, so a large output cannot stall it.
  ///
  /// - Parameter environment: the process's whole environment; `nil` (the default) passes on this
  ///   process's.
  public func runProcess(
    _ executable: URL, _ arguments: [String], environment: [String: String]? = nil
  ) async throws -> ProcessRun {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xid-run-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let outURL = directory.appendingPathComponent("out")
    let errURL = directory.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let out = try FileHandle(forWritingTo: outURL)
    let err = try FileHandle(forWritingTo: errURL)
    defer {
      try? out.close()
      try? err.close()
    }
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = out
    process.standardError = err
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
      // waitUntilExit() (at once: the process has exited) lets go of the Process, which
      // swift-corelibs-foundation otherwise keeps alive through its run loop source forever.
      process.terminationHandler = {
        $0.waitUntilExit()
        continuation.resume(returning: $0.terminationStatus)
      }
      do {
        try process.run()
      } catch {
        process.terminationHandler = nil
        continuation.resume(throwing: error)
      }
    }
    return ProcessRun(
      status: status, standardOutput: try textFile(at: outURL), standardError: try textFile(at: errURL))
  }
#endif
