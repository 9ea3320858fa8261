import Foundation

/// How much a log message matters.
public enum XidLogLevel: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
  /// Detail for debugging Xid itself.
  case debug
  /// Normal operation: a sign-in started, a token was refreshed.
  case info
  /// Something worth noticing that Xid handled: a corrupt record removed, a retry.
  case notice
  /// Something failed.
  case error

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

  /// The level's name.
  public var description: String {
    switch self {
    case .debug: "debug"
    case .info: "info"
    case .notice: "notice"
    case .error: "error"
    }
  }
}

/// Receives Xid's log messages. Install your own with ``SessionParts/logger`` to route them to
/// your logging system.
///
/// Messages are written by Xid and never contain a token, authorization code, PKCE verifier, key or
/// any other secret, so they are safe to store.
public protocol XidLogger: Sendable {
  /// Records one message of `category` (for example `"refresh"` or `"storage"`).
  func log(_ level: XidLogLevel, category: String, _ message: String)
}

/// Writes messages at or above a level to standard error, one line each.
public struct StandardErrorLogger: XidLogger {
  /// The lowest level written.
  public var minimumLevel: XidLogLevel

  /// Creates a logger that writes messages at `minimumLevel` and above.
  public init(minimumLevel: XidLogLevel = .notice) { self.minimumLevel = minimumLevel }

  public func log(_ level: XidLogLevel, category: String, _ message: String) {
    guard level >= minimumLevel else { return }
    FileHandle.standardError.write(Data("xid[\(category)] \(level): \(message)\n".utf8))
  }
}

/// Discards every message.
public struct DiscardingLogger: XidLogger {
  /// Creates a logger that discards every message.
  public init() {}
  public func log(_ level: XidLogLevel, category: String, _ message: String) {}
}

#if canImport(os)
  import os

  /// Sends messages to the unified logging system (`os.Logger`), subsystem `dev.xid`: the default on
  /// Apple platforms. Messages are public because Xid never puts secrets into them.
  public struct OSLogger: XidLogger {
    private let subsystem: String

    /// Creates a logger for `subsystem`.
    public init(subsystem: String = "dev.xid") { self.subsystem = subsystem }

    public func log(_ level: XidLogLevel, category: String, _ message: String) {
      let logger = Logger(subsystem: subsystem, category: category)
      switch level {
      case .debug: logger.debug("\(message, privacy: .public)")
      case .info: logger.info("\(message, privacy: .public)")
      case .notice: logger.notice("\(message, privacy: .public)")
      case .error: logger.error("\(message, privacy: .public)")
      }
    }
  }
#endif

/// The platform's default logger: `OSLogger` on Apple platforms, ``StandardErrorLogger`` for errors
/// elsewhere.
public func defaultXidLogger() -> any XidLogger {
  #if canImport(os)
    OSLogger()
  #else
    StandardErrorLogger(minimumLevel: .error)
  #endif
}
