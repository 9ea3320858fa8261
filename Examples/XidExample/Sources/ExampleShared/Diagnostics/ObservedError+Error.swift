import ExampleDiagnostics
import Foundation
import Xid

extension ObservedError {
  /// The parts of `error` for the report: an `XidError`'s code and reason, or an `NSError`'s domain,
  /// code and description. Neither carries a token: Xid redacts its reasons, and the checks read no
  /// token.
  public init(_ error: any Error) {
    if let error = error as? XidError {
      self.init(domain: Self.xidDomain, code: error.code.rawValue, message: error.reason)
      return
    }
    let error = error as NSError
    self.init(domain: error.domain, code: error.code, message: error.localizedDescription)
  }
}

extension Duration {
  /// The duration in whole milliseconds, for the report.
  var milliseconds: Int {
    let (seconds, attoseconds) = components
    return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
  }
}
