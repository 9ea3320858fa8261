import Foundation
import XidCore

/// A clock whose wall time stands at one date while its waits are real: for tests of an account
/// whose tokens must stay valid (or expired) however long the test runs, and whose pauses (between
/// save attempts, say) must take real time so that another task can act meanwhile.
struct StandingClock: XidClock {
  /// The wall time, which never moves.
  let now: Date

  var monotonicNow: ContinuousClock.Instant { ContinuousClock.now }

  func sleep(for duration: Duration) async throws { try await SystemClock().sleep(for: duration) }
}
