import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Worker processes (XidRefreshWorker) sharing a ``MatrixWorld``'s storage: each round, every task of
/// each asks for an access token, and each reports what it got.
final class WorkerFleet: @unchecked Sendable {
  /// What one worker reported for one round.
  struct Report {
    var errors: [String]
    var errorDescriptions: [String]
    var distinctTokens: Int
  }

  let world: MatrixWorld
  // Only touched by the test's task.
  private var processes: [String: Process] = [:]

  init(world: MatrixWorld) { self.world = world }

  /// Starts a worker that takes part in rounds `firstRound` to `lastRound` with `tasks` tasks.
  func spawn(_ index: String, tasks: Int, firstRound: Int = 1, lastRound: Int) throws {
    let process = Process()
    process.executableURL = MultiProcessRefreshTests.workerURL
    process.arguments = [
      world.provider.issuer.absoluteString, TestClient.example.id, TestClient.example.redirectURIs[0].absoluteString,
      world.keychainDirectory.path, world.control.path, index, String(tasks), String(lastRound),
    ]
    process.environment = ProcessInfo.processInfo.environment.merging([
      "XID_WORKER_STORAGE": "keychain:" + world.container.path, "XID_WORKER_CLOCK": "control", "XID_WORKER_LOG": "1",
      "XID_WORKER_FIRST_ROUND": String(firstRound),
    ]) { $1 }
    // waitUntilExit() (at once: the worker has exited) lets go of the Process, which
    // swift-corelibs-foundation otherwise keeps alive through its run loop source forever.
    process.terminationHandler = { $0.waitUntilExit() }
    try process.run()
    processes[index] = process
  }

  /// Waits until the workers `indexes` are ready.
  func waitUntilReady(_ indexes: [String]) async throws {
    try await waitForFiles(indexes.map { "ready-\($0)" })
  }

  /// Starts round `round` for every worker, or for `index` alone.
  func go(_ round: Int, only index: String? = nil) throws {
    let name = index.map { "go-\(round)-\($0)" } ?? "go-\(round)"
    try Data().write(to: world.control.appendingPathComponent(name))
  }

  /// Makes worker `index` do `action` (`"signOut"`) during round `round`.
  func act(_ action: String, round: Int, by index: String) throws {
    try Data(action.utf8).write(to: world.control.appendingPathComponent("action-\(round)-\(index)"))
  }

  /// The reports of round `round` from `indexes`, once all are written.
  func reports(_ round: Int, from indexes: [String]) async throws -> [Report] {
    let names = indexes.map { "done-\(round)-\($0)" }
    try await waitForFiles(names)
    return try names.map { name in
      let json = try JSONValue(parsing: Array(try Data(contentsOf: world.control.appendingPathComponent(name))))
      return Report(
        errors: json["errors"]?.arrayValue?.compactMap(\.stringValue) ?? ["unreadable report"],
        errorDescriptions: json["errorDescriptions"]?.arrayValue?.compactMap(\.stringValue) ?? [],
        distinctTokens: Int(json["distinctTokens"]?.int64Value ?? -1))
    }
  }

  /// `kill -9`: the process ends at once, whatever it holds; the system releases its locks.
  func kill(_ index: String) async throws {
    guard let process = processes.removeValue(forKey: index) else { return }
    #if canImport(Glibc)
      _ = Glibc.kill(process.processIdentifier, SIGKILL)
    #elseif canImport(Darwin)
      _ = Darwin.kill(process.processIdentifier, SIGKILL)
    #endif
    try await BackgroundActivityTests.eventually { !process.isRunning }
  }

  /// Ends every worker still running.
  func stop() {
    for process in processes.values where process.isRunning { process.terminate() }
    processes.removeAll()
  }

  private func waitForFiles(_ names: [String]) async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while !names.allSatisfy({ FileManager.default.fileExists(atPath: world.control.appendingPathComponent($0).path) }) {
      guard ContinuousClock.now < deadline else {
        Issue.record("the workers did not write \(names.prefix(3)) in time")
        throw CancellationError()
      }
      try await Task.sleep(for: .milliseconds(5))
    }
  }
}
