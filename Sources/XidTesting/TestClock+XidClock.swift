import Foundation
import XidCore

extension TestClock: XidClock {
  /// Moves the clock forward by `seconds` at once instead of waiting, so that a client polling the
  /// provider (the device flow) runs in no real time.
  public func sleep(for seconds: TimeInterval) async throws {
    try Task.checkCancellation()
    advance(by: max(seconds, 0))
    await Task.yield()
  }
}
