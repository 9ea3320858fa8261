import Foundation

/// Where the protocol code gets the time and how it waits, so that tests can control both.
///
/// ID token validation, metadata and key caching, and device-flow polling read ``now`` and wait
/// with ``sleep(for:)``. Apps use ``SystemClock``; tests put in a clock whose `sleep` returns at once
/// and moves its `now` forward.
public protocol XidClock: Sendable {
  /// The current wall-clock time.
  var now: Date { get }
  /// Waits `duration`, or less if the task is cancelled.
  ///
  /// - Throws: `CancellationError` when the task is cancelled while it waits.
  func sleep(for duration: Duration) async throws
}

/// The system's wall clock, waiting with `Task.sleep`.
public struct SystemClock: XidClock {
  /// Creates the system clock.
  public init() {}

  /// `Date()`.
  public var now: Date { Date() }

  /// Waits with `Task.sleep`, which ends early with `CancellationError` when the task is cancelled.
  public func sleep(for duration: Duration) async throws {
    guard duration > .zero else { return try Task.checkCancellation() }
    try await Task.sleep(for: min(duration, .seconds(86_400)))
  }
}
