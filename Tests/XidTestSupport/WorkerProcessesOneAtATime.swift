// Test support only: empty where Swift Testing is absent (the iOS compile check), as Expectations.swift.
#if canImport(Testing)
  import Testing

  /// Runs the tests that start `XidRefreshWorker` processes one at a time, across suites
  /// (`MultiProcessRefreshTests`, the fault matrix's eight-process runs, and the one against glewlwyd),
  /// and with them the other heavy ones: those that run the `xid` binary against a loopback provider
  /// (`BinaryTests`, `DPoPBinaryTests`, `TerminalSafetyTests`).
  ///
  /// Each such test serves its provider from this process while eight workers wait on it, and holds
  /// the account's lock in a worker while the provider answers. Two of them at once, beside the other
  /// suites on a loaded two-core machine, starved each other's providers long enough for workers to
  /// give up on the lock (`lockTimeout`) and for tokens to expire on their way: failures of the
  /// machine, not of Xid. The same happened to a loopback provider's answers (past the 10 to 20 s
  /// request timeouts) while `xid` binaries ran beside eight workers in CI.
  /// Within a suite `.serialized` already orders the tests; this orders the suites.
  public struct WorkerProcessesOneAtATime: SuiteTrait, TestTrait, TestScoping {
    /// Each test of a suite takes its turn.
    public var isRecursive: Bool { true }

    /// Runs `function` in the turn of worker-process tests.
    public func provideScope(
      for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
      guard !test.isSuite, !WorkerProcessGate.held.get() else { return try await function() }
      await WorkerProcessGate.shared.enter()
      do {
        try await WorkerProcessGate.held.withValue(true) { try await function() }
      } catch {
        await WorkerProcessGate.shared.leave()
        throw error
      }
      await WorkerProcessGate.shared.leave()
    }
  }

  extension Trait where Self == WorkerProcessesOneAtATime {
    /// Runs the test (or each test of the suite) while no other test runs worker processes.
    public static var workerProcessesOneAtATime: Self { WorkerProcessesOneAtATime() }
  }

  /// The turn of the tests that run worker processes: one holder, the others waiting in order.
  actor WorkerProcessGate {
    static let shared = WorkerProcessGate()
    /// Whether the task already holds the turn (a test case inside its test).
    static let held = TaskLocal<Bool>(wrappedValue: false)

    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
      guard busy else {
        busy = true
        return
      }
      await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
      if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
  }
#endif
