/// An error a check saw, as plain text: its domain (`XidError` for Xid's, an `NSError` domain such
/// as `com.apple.LocalAuthentication` otherwise), its code (Xid's name, or the number) and its
/// message. Errors carry no token: the checks read none.
public struct ObservedError: Codable, Sendable, Hashable, CustomStringConvertible {
  /// The domain of Xid's errors.
  public static let xidDomain = "XidError"
  /// LocalAuthentication's `LAErrorDomain`.
  public static let localAuthenticationDomain = "com.apple.LocalAuthentication"

  /// `XidError`, or the `NSError` domain.
  public var domain: String
  /// The `XidError.Code` name, or the `NSError` code.
  public var code: String
  /// The reason of an `XidError`, or the error's localized description.
  public var message: String

  /// An error of `domain`.
  public init(domain: String, code: String, message: String) {
    self.domain = domain
    self.code = code
    self.message = message
  }

  /// An `NSError`'s parts.
  public init(domain: String, code: Int, message: String) {
    self.init(domain: domain, code: String(code), message: message)
  }

  /// An `XidError` of the code named `code` (`"lockTimeout"`).
  public static func xid(_ code: String, _ reason: String) -> ObservedError {
    ObservedError(domain: xidDomain, code: code, message: reason)
  }

  /// Whether it is an `XidError` of the code named `code`.
  public func isXid(_ code: String) -> Bool { domain == Self.xidDomain && self.code == code }

  /// Whether it is an `XidError` whose code is one of `codes`.
  public func isXid(oneOf codes: Set<String>) -> Bool { domain == Self.xidDomain && codes.contains(code) }

  /// Whether it is of LocalAuthentication's domain with a code that is not one of the public
  /// `LAError` codes of the iOS 17.4 SDK (-1 to -14, -1004): what Xid takes for a missing right.
  public var isPrivateLocalAuthenticationCode: Bool {
    guard domain == Self.localAuthenticationDomain, let number = Int(code) else { return false }
    return !(-14 ... -1).contains(number) && number != -1004
  }

  /// The user cancelled the prompt (or the app did): run the check again.
  public var isCancellation: Bool {
    isXid(oneOf: ["authenticationCancelled", "userCancelled", "cancelled"])
  }

  /// `domain code: message`.
  public var description: String { "\(domain) \(code): \(message)" }
}
