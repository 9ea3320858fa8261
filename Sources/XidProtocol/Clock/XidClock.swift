import Foundation

#if os(Linux)
  import Glibc
#endif

/// Where the protocol code gets the time and how it waits, so that tests can control both.
///
/// ID token validation, metadata and key caching, and device-flow polling read ``now`` and wait
/// with ``sleep(for:)``. Timeouts (a request to the provider that gets no answer, the wait for
/// another process's lock) end when ``sleep(until:)`` returns. Apps use ``SystemClock``; tests put in
/// a clock whose `sleep(for:)` returns at once and moves its `now` forward, and whose
/// `sleep(until:)` returns when the test moves it past the deadline.
///
/// Two readings: ``now``, the wall clock, for what the provider stamps (token expiry, `iat`, `exp`),
/// and ``monotonicNow``, for how long something has lasted in this process. Setting the device's
/// clock moves the first, never the second.
public protocol XidClock: Sendable {
  /// The current wall-clock time.
  var now: Date { get }
  /// A monotonic reading: it never goes back, counts while the device sleeps, and does not move when
  /// the wall clock is set. Only differences between two readings mean anything; use it to measure
  /// how long something lasted in this process (time in the background, a wait), never for a time a
  /// server stamps.
  var monotonicNow: ContinuousClock.Instant { get }
  /// The wall-clock time read cheaply, a few milliseconds behind at most: for checks whose margin
  /// is seconds, such as whether a token in memory is still usable. The default is ``now``; clocks
  /// that tests move need nothing else.
  var coarseNow: Date { get }
  /// Waits `duration`, or less if the task is cancelled.
  ///
  /// - Throws: `CancellationError` when the task is cancelled while it waits.
  func sleep(for duration: Duration) async throws
  /// Waits until ``now`` reaches `deadline`: the end of a timeout. Unlike ``sleep(for:)``, it never
  /// moves the clock; it returns when time (or whoever moves this clock) has reached `deadline`.
  ///
  /// The default implementation checks ``now`` again after real waits of at most a second, so that
  /// a clock that jumps ahead ends the wait soon after.
  ///
  /// - Throws: `CancellationError` when the task is cancelled while it waits.
  func sleep(until deadline: Date) async throws
}

extension XidClock {
  /// ``now``.
  public var coarseNow: Date { now }

  /// Waits in real time until ``now`` reaches `deadline`, checking ``now`` at least once a second.
  public func sleep(until deadline: Date) async throws {
    while true {
      let remaining = deadline.timeIntervalSince(now)
      guard remaining > 0 else { return try Task.checkCancellation() }
      try await Task.sleep(for: .seconds(min(remaining, 1)))
    }
  }
}

/// The system's wall clock, waiting with `Task.sleep`.
public struct SystemClock: XidClock {
  /// Creates the system clock.
  public init() {}

  /// `Date()`.
  public var now: Date { Date() }

  /// On Linux, `CLOCK_REALTIME_COARSE`: the time of the kernel's last tick (1 to 10 ms behind),
  /// read in a fifth of the time of `Date()` on a virtual machine, where a precise reading is
  /// expensive. Elsewhere `Date()`.
  public var coarseNow: Date {
    #if os(Linux)
      var time = timespec()
      guard clock_gettime(CLOCK_REALTIME_COARSE, &time) == 0 else { return Date() }
      return Date(
        timeIntervalSince1970: TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1_000_000_000)
    #else
      return Date()
    #endif
  }

  /// `ContinuousClock.now`.
  public var monotonicNow: ContinuousClock.Instant { ContinuousClock.now }

  /// Waits with `Task.sleep`, which ends early with `CancellationError` when the task is cancelled.
  public func sleep(for duration: Duration) async throws {
    guard duration > .zero else { return try Task.checkCancellation() }
    try await Task.sleep(for: min(duration, .seconds(86_400)))
  }

  /// Waits with `Task.sleep` until `Date()` reaches `deadline` (checked again after each wait, in
  /// case the system's time changed).
  public func sleep(until deadline: Date) async throws {
    while true {
      let remaining = deadline.timeIntervalSince(Date())
      guard remaining > 0 else { return try Task.checkCancellation() }
      try await Task.sleep(for: .seconds(min(remaining, 86_400)))
    }
  }
}
