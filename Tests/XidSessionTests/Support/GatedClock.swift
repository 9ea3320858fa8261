import Foundation
import XidCore

/// A clock whose wall time stands at one date and whose every sleep waits at a ``Gate`` the test
/// opens: for tests that act while an account pauses (between two attempts to save, say).
struct GatedClock: XidClock {
  /// The wall time, which never moves.
  let now: Date
  /// Where each sleep waits.
  let gate: Gate

  var monotonicNow: ContinuousClock.Instant { ContinuousClock.now }

  func sleep(for duration: Duration) async throws { await gate.wait() }
}
