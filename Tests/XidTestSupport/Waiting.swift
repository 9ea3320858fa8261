import Foundation

/// Polls `condition` every `interval` until it holds, and says whether it did within `polls` polls.
///
/// The allowance is counted in polls, not on the wall clock: when the whole test process is held up
/// (two cores, the full suite, a process that starts slowly), a wall-clock deadline can pass while
/// the work the condition waits for has not been scheduled at all, and the condition would be read
/// once, too early, and reported as never holding. Each poll sleeps at least `interval`, so the
/// allowance is never shorter than `polls × interval` of real time either.
///
/// - Returns: `true` as soon as the condition holds; `false` after `polls` polls that found it false.
/// - Throws: `CancellationError` when the calling task is cancelled.
public func pollUntil(
  every interval: Duration = .milliseconds(2), atMost polls: Int = 5_000, _ condition: () async -> Bool
) async throws -> Bool {
  for _ in 0..<polls {
    if await condition() { return true }
    try await Task.sleep(for: interval)
  }
  return await condition()
}

#if os(macOS) || os(Linux)
  extension Process {
    /// Waits, without blocking a thread, until the process has exited, and returns its exit status.
    ///
    /// `waitUntilExit()` blocks the calling thread (it runs that thread's run loop): called from a
    /// test, it takes one of the few threads every test shares, and on a two-core machine two such
    /// waits stop all the others for as long as the processes take. This polls instead.
    @discardableResult
    public func exited(pollingEvery interval: Duration = .milliseconds(10)) async throws -> Int32 {
      while isRunning { try await Task.sleep(for: interval) }
      // At once (the process has exited): it lets go of the Process, which swift-corelibs-foundation
      // otherwise keeps alive through its run loop source.
      waitUntilExit()
      return terminationStatus
    }
  }
#endif
