import Foundation
import XidCore

extension TestClock: XidClock {
  /// Moves the clock forward by `duration` at once instead of waiting, so that a client polling the
  /// provider (the device flow) runs in no real time. The durations are kept in ``sleeps``.
  public func sleep(for duration: Duration) async throws {
    try Task.checkCancellation()
    recordSleep(max(duration, .zero))
    await Task.yield()
  }
}
