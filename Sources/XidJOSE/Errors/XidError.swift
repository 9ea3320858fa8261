/// The one error type of Xid: a machine-readable ``Code`` and a reason a developer can act on.
///
/// Every failure Xid reports, from a malformed token to a refused refresh, is an `XidError`. Switch on
/// ``code`` to react; show or log ``reason`` to explain. The reason is written by Xid itself and never
/// contains token material (tokens, codes, verifiers, keys or signatures), so it is safe to log.
///
/// ```swift
/// do {
///   let claims = try verifier.verify(idToken)
/// } catch let error as XidError where error.code == .invalidSignature {
///   // the token was not signed by the provider's key
/// }
/// ```
public struct XidError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What kind of failure this is.
  public let code: Code
  /// What went wrong and what to do about it, free of token material.
  public let reason: String
  /// The HTTP status of the response that caused the error, when there was one.
  public let httpStatus: Int?
  /// The OAuth 2.0 `error` code the server sent (RFC 6749 §5.2, for example `"invalid_grant"`),
  /// when it sent one.
  public let oauthError: String?
  /// What a resource server asks of the user's authentication, for ``Code/stepUpRequired``; `nil`
  /// for every other code.
  public let stepUp: StepUpRequirement?

  /// Creates an error with a code, a reason and, optionally, the HTTP status and OAuth error behind it.
  ///
  /// - Important: never put token material into `reason`.
  public init(_ code: Code, _ reason: String, httpStatus: Int? = nil, oauthError: String? = nil) {
    self.init(code, reason, httpStatus: httpStatus, oauthError: oauthError, stepUp: nil)
  }

  /// Creates a ``Code/stepUpRequired`` error (or any other) with the requirement behind it.
  ///
  /// - Important: never put token material into `reason`.
  public init(
    _ code: Code, _ reason: String, httpStatus: Int? = nil, oauthError: String? = nil, stepUp: StepUpRequirement?
  ) {
    self.code = code
    self.reason = reason
    self.httpStatus = httpStatus
    self.oauthError = oauthError
    self.stepUp = stepUp
  }

  /// `XidError(<code>, HTTP <status>, <oauth error>): <reason>`, with the parts that are known.
  public var description: String {
    var context = [code.rawValue]
    if let httpStatus { context.append("HTTP \(httpStatus)") }
    if let oauthError { context.append(oauthError) }
    return "XidError(\(context.joined(separator: ", "))): \(reason)"
  }
}
