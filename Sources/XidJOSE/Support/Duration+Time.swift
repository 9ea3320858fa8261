import Dispatch
import Foundation

extension Duration {
  /// This duration for Dispatch, in nanoseconds, clamped to what `Int` holds.
  package var dispatchInterval: DispatchTimeInterval {
    let (seconds, attoseconds) = components
    let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    return .nanoseconds(overflow ? .max : Int(clamping: nanoseconds + attoseconds / 1_000_000_000))
  }

  /// This duration in seconds, as Foundation counts time.
  package var timeInterval: TimeInterval {
    // `components` divides a 128-bit count of attoseconds: read it once.
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
