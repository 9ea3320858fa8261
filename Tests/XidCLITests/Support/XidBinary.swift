import Foundation
import Testing
import XidTestSupport

/// The `xid` executable SwiftPM built next to the test bundle (the test target depends on it), run
/// with an environment of the test's making: its own HOME and state directory, no BROWSER, no XID_*.
struct XidBinary: Sendable {
  /// What one run printed and how it ended.
  struct Run: Sendable, CustomStringConvertible {
    let arguments: [String]
    let exitCode: Int32
    let stdout: String
    let stderr: String

    var description: String {
      "xid \(arguments.joined(separator: " ")) → \(exitCode)\n--- stdout\n\(stdout)--- stderr\n\(stderr)"
    }
  }

  let executable: URL
  /// A private folder: HOME, the state directory and the runs' output files live in it.
  let home: URL
  var stateDirectory: URL { home.appendingPathComponent("state", isDirectory: true) }

  init() throws {
    executable = try Self.locate()
    home = FileManager.default.temporaryDirectory.appendingPathComponent(
      "xid-cli-tests-\(UUID().uuidString.prefix(8))", isDirectory: true)
    try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
  }

  /// Removes the private folder.
  func cleanUp() { try? FileManager.default.removeItem(at: home) }

  /// The built `xid`: beside the test bundle, else in the package's `.build/debug`.
  static func locate() throws -> URL {
    let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let candidates = [
      bundleDirectory.appendingPathComponent("xid"),
      Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("xid"),
      packageRoot.appendingPathComponent(".build/debug/xid"),
    ]
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
      throw BinaryMissing(candidates: candidates.map(\.path))
    }
    return found
  }

  struct BinaryMissing: Error, CustomStringConvertible {
    let candidates: [String]
    var description: String { "the xid binary was not built; looked at \(candidates.joined(separator: ", "))" }
  }

  /// The environment of every run: PATH, this test's HOME and state directory, and the sanitizers'
  /// options of the test process, if any (scripts/sanitizers.sh: the `xid` under test is built with
  /// the same sanitizer, and its suppressions apply to it too).
  var environment: [String: String] {
    let inherited = ProcessInfo.processInfo.environment.filter { Self.inheritedVariables.contains($0.key) }
    return inherited.merging([
      "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": home.path,
      "XID_STATE_DIR": stateDirectory.path, "LANG": "C.UTF-8",
    ]) { $1 }
  }

  /// The variables passed on from the test process: the sanitizers' options.
  static let inheritedVariables: Set<String> = [
    "ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS", "SWIFT_BACKTRACE",
  ]

  /// Runs `xid` with `arguments` and `extraEnvironment` in the private folder, and waits for it to
  /// exit; its output goes to files named after `label`.
  func run(
    _ arguments: [String], environment extraEnvironment: [String: String] = [:],
    label: String = String(UUID().uuidString.prefix(8))
  ) async throws -> Run {
    let run = try await runProcess(
      executable, arguments, environment: environment.merging(extraEnvironment) { $1 }, currentDirectory: home,
      output: outputFiles(label: label))
    return Run(arguments: arguments, exitCode: run.status, stdout: run.standardOutput, stderr: run.standardError)
  }

  /// The files the run labelled `label` writes its output to, in the private folder.
  func outputFiles(label: String) -> ProcessOutputFiles { ProcessOutputFiles(in: home, named: "run-\(label)") }

  /// What the run labelled `label` has written to standard error so far, for tests that read what a
  /// running `xid` shows (a device code).
  func standardErrorSoFar(label: String) -> String {
    (try? textFile(at: outputFiles(label: label).standardError)) ?? ""
  }

  /// Every token in the state directory's token records.
  func storedTokens() -> Set<String> {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: stateDirectory.path)) ?? []
    var tokens = Set<String>()
    for file in files where file.hasPrefix("xid.tokens.") {
      guard let data = FileManager.default.contents(atPath: stateDirectory.appendingPathComponent(file).path),
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
      else { continue }
      for name in ["access_token", "refresh_token", "id_token"] {
        if let token = object[name] as? String { tokens.insert(token) }
      }
    }
    return tokens
  }
}
