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

  /// The two files a process's output goes to: they stay where they are, so that a test can read
  /// what a running process has written so far.
  public struct ProcessOutputFiles: Sendable {
    /// The file that receives standard output.
    public var standardOutput: URL
    /// The file that receives standard error.
    public var standardError: URL

    /// `name.out` and `name.err` in `directory`.
    public init(in directory: URL, named name: String) {
      standardOutput = directory.appendingPathComponent("\(name).out")
      standardError = directory.appendingPathComponent("\(name).err")
    }
  }

  /// Runs `executable` with `arguments` and no standard input, and waits for it to exit without
  /// blocking a thread. Its output goes through files, so a large output cannot stall it.
  ///
  /// - Parameters:
  ///   - environment: the process's whole environment; `nil` (the default) passes on this
  ///     process's.
  ///   - currentDirectory: the process's working directory; `nil` (the default) keeps this
  ///     process's.
  ///   - output: the files its output goes to, emptied first and left in place; `nil` (the
  ///     default): temporary files, removed once it has exited.
  public func runProcess(
    _ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
    currentDirectory: URL? = nil, output: ProcessOutputFiles? = nil
  ) async throws -> ProcessRun {
    guard let output else {
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xid-run-\(UUID())")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: directory) }
      return try await runProcess(
        executable, arguments, environment: environment, currentDirectory: currentDirectory,
        output: ProcessOutputFiles(in: directory, named: "run"))
    }
    _ = FileManager.default.createFile(atPath: output.standardOutput.path, contents: nil)
    _ = FileManager.default.createFile(atPath: output.standardError.path, contents: nil)
    let out = try FileHandle(forWritingTo: output.standardOutput)
    let err = try FileHandle(forWritingTo: output.standardError)
    defer {
      try? out.close()
      try? err.close()
    }
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let currentDirectory { process.currentDirectoryURL = currentDirectory }
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
      status: status, standardOutput: try textFile(at: output.standardOutput),
      standardError: try textFile(at: output.standardError))
  }
#endif
