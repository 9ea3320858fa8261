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
  private let state: LockedValue<(now: Date, sleeps: [Duration])>

  /// Creates a clock that stands at `now`, by default the real current time.
  public init(now: Date = Date()) { state = LockedValue((now, [])) }

  /// The clock's current time.
  public var now: Date { state.get().now }

  /// The durations that code under test asked this clock to sleep, in order.
  public var sleeps: [Duration] { state.get().sleeps }

  /// Moves the clock by `duration`; a negative value moves it back, to simulate skew.
  public func advance(by duration: Duration) {
    state.update { $0.now += duration.timeInterval }
  }

  /// Moves the clock forward by `duration` and records it as a sleep.
  func recordSleep(_ duration: Duration) {
    state.update {
      $0.now += duration.timeInterval
      $0.sleeps.append(duration)
    }
  }

  /// Sets the clock to `date`.
  public func set(to date: Date) {
    state.update { $0.now = date }
  }
}

extension Date {
  /// The date `duration` after `date`: the provider's expiry arithmetic.
  static func + (date: Date, duration: Duration) -> Date { date.addingTimeInterval(duration.timeInterval) }
}
