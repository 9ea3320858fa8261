import Foundation
import XidCore

/// The time a ``TestProvider`` lives in: it stands still until a test moves it.
///
/// The provider reads the clock for everything that expires or is rate limited: authorization codes,
/// access, refresh and ID tokens, pushed requests, device codes and the device polling interval. A
/// test makes a token expire, or waits out a polling interval, by advancing the clock instead of
/// sleeping:
///
/// ```swift
/// let clock = TestClock()
/// let provider = try TestProvider(clock: clock)
/// // … obtain an access token that lives 300 seconds …
/// clock.advance(by: .seconds(301))  // the token is now expired, at once
/// ```
///
/// A new clock starts at the real current time, so tokens it stamps are also valid for code that
/// checks them against the system clock until the test advances it. Pass the same clock to the code
/// under test when it accepts a time source, so that both sides agree.
///
/// `TestClock` is a class so that every holder sees the same time; it is safe to read and advance
/// from any task. Reads and writes are synchronous (a lock guards one `Date`, never across a
/// suspension), so synchronous validation code can read it too.
public final class TestClock: Sendable {
  private struct State {
    var now: Date
    /// How far the monotonic reading has moved since the clock was made.
    var elapsed: Duration = .zero
    var sleeps: [Duration] = []
    /// Timeouts waiting in ``sleep(until:)``, by number.
    var deadlines: [UInt64: (deadline: Date, continuation: CheckedContinuation<Void, any Error>)] = [:]
    /// Waits cancelled before they were registered.
    var cancelled: Set<UInt64> = []
    var nextWait: UInt64 = 0
  }

  private let state: LockedValue<State>
  /// The monotonic reading when the clock was made.
  private let origin = ContinuousClock.now

  /// Creates a clock that stands at `now`, by default the real current time.
  public init(now: Date = Date()) { state = LockedValue(State(now: now)) }

  /// The clock's current time.
  public var now: Date { state.get().now }

  /// The clock's monotonic reading: it moves with ``advance(by:)`` forward and with sleeps, and stays
  /// where it is when the test sets the wall clock (``set(to:)``) or moves it back, as a device's
  /// does when its user changes the time.
  public var monotonicNow: ContinuousClock.Instant { origin + state.get().elapsed }

  /// The durations that code under test asked this clock to sleep, in order.
  public var sleeps: [Duration] { state.get().sleeps }

  /// Moves the clock by `duration`: time passes, so the monotonic reading moves too. A negative
  /// value moves the wall clock back, to simulate skew, and leaves the monotonic reading alone.
  /// Timeouts whose deadline the clock reaches end (see ``sleep(until:)``).
  public func advance(by duration: Duration) {
    move {
      $0.now += duration.timeInterval
      $0.elapsed += max(duration, .zero)
    }
  }

  /// Moves the clock forward by `duration` and records it as a sleep.
  func recordSleep(_ duration: Duration) {
    move {
      $0.now += duration.timeInterval
      $0.elapsed += duration
      $0.sleeps.append(duration)
    }
  }

  /// Sets the wall clock to `date`, as a user who changes the device's time does: the monotonic
  /// reading stays. Timeouts whose deadline the clock reaches end.
  public func set(to date: Date) {
    move { $0.now = date }
  }

  /// Waits until a test moves the clock to `deadline` or past it: a timeout of the code under test
  /// (a request to the provider, the wait for another process's lock) fires when the test moves the
  /// clock, and never by itself. Returns at once when the clock is there already.
  ///
  /// - Throws: `CancellationError` when the task is cancelled while it waits.
  public func sleep(until deadline: Date) async throws {
    let number = state.update { state -> UInt64 in
      defer { state.nextWait &+= 1 }
      return state.nextWait
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let outcome = state.update { state -> Result<Void, any Error>? in
          if state.cancelled.remove(number) != nil { return .failure(CancellationError()) }
          if state.now >= deadline { return .success(()) }
          state.deadlines[number] = (deadline, continuation)
          return nil
        }
        if let outcome { continuation.resume(with: outcome) }
      }
    } onCancel: {
      let waiting = state.update { state -> CheckedContinuation<Void, any Error>? in
        guard let waiting = state.deadlines.removeValue(forKey: number) else {
          state.cancelled.insert(number)
          return nil
        }
        return waiting.continuation
      }
      waiting?.resume(throwing: CancellationError())
    }
    // A wait that ended before it was registered leaves no mark.
    state.update { _ = $0.cancelled.remove(number) }
  }

  /// Changes the time with `change`, then ends the timeouts whose deadline it reached.
  private func move(_ change: (inout State) -> Void) {
    let due = state.update { state -> [CheckedContinuation<Void, any Error>] in
      change(&state)
      let reached = state.deadlines.filter { $0.value.deadline <= state.now }
      for number in reached.keys { state.deadlines[number] = nil }
      return reached.values.map(\.continuation)
    }
    for continuation in due { continuation.resume() }
  }
}

extension Date {
  /// The date `duration` after `date`: the provider's expiry arithmetic.
  static func + (date: Date, duration: Duration) -> Date { date.addingTimeInterval(duration.timeInterval) }
}
