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
  package var timeInterval: TimeInterval { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
