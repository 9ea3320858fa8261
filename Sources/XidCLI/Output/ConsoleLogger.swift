import Xid

/// Xid's log messages on standard error, through the ``Console``, so that their control characters
/// are escaped like the rest of the output. The lines read as ``StandardErrorLogger``'s do.
struct ConsoleLogger: XidLogger {
  let console: Console
  /// The lowest level written.
  let minimumLevel: XidLogLevel

  func log(_ level: XidLogLevel, category: String, _ message: String) {
    guard level >= minimumLevel else { return }
    console.err("xid[\(category)] \(level): \(message)")
  }
}
