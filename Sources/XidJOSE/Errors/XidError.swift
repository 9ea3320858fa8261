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
  /// What kind of failure this is. Codes are stable; new ones are added as static members.
  public struct Code: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
    /// The stable name of the code, for example `"invalidSignature"`.
    public let rawValue: String

    /// Creates a code from its stable name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The stable name of the code.
    public var description: String { rawValue }
  }

  /// What kind of failure this is.
  public let code: Code
  /// What went wrong and what to do about it, free of token material.
  public let reason: String
  /// The HTTP status of the response that caused the error, when there was one.
  public let httpStatus: Int?
  /// The OAuth 2.0 `error` code the server sent (RFC 6749 §5.2, for example `"invalid_grant"`),
  /// when it sent one.
  public let oauthError: String?

  /// Creates an error with a code, a reason and, optionally, the HTTP status and OAuth error behind it.
  ///
  /// - Important: never put token material into `reason`.
  public init(_ code: Code, _ reason: String, httpStatus: Int? = nil, oauthError: String? = nil) {
    self.code = code
    self.reason = reason
    self.httpStatus = httpStatus
    self.oauthError = oauthError
  }

  /// `XidError(<code>, HTTP <status>, <oauth error>): <reason>`, with the parts that are known.
  public var description: String {
    var context = [code.rawValue]
    if let httpStatus { context.append("HTTP \(httpStatus)") }
    if let oauthError { context.append(oauthError) }
    return "XidError(\(context.joined(separator: ", "))): \(reason)"
  }
}

extension XidError.Code {
  /// Input was not valid base64url (RFC 7515 §2): padding, whitespace or a character outside the alphabet.
  public static let invalidEncoding = Self(rawValue: "invalidEncoding")
  /// Input was not valid JSON, or not the JSON shape that was expected.
  public static let invalidJSON = Self(rawValue: "invalidJSON")
  /// Input was larger than Xid accepts; it was refused before it was parsed.
  public static let inputTooLarge = Self(rawValue: "inputTooLarge")
  /// A JSON Web Key was malformed, weak, or carried members it must not have.
  public static let invalidKey = Self(rawValue: "invalidKey")
  /// A JSON Web Key was well formed but of a type, curve or use Xid does not support.
  public static let unsupportedKey = Self(rawValue: "unsupportedKey")
  /// A JWS was malformed: not three parts, a header that is not a JSON object, and the like.
  public static let malformedJWS = Self(rawValue: "malformedJWS")
  /// The JWS used a feature Xid refuses (`crit` members it does not understand, `b64: false`).
  public static let unsupportedJWSFeature = Self(rawValue: "unsupportedJWSFeature")
  /// The JWS header's `alg` is not one the caller allowed, or does not fit the key.
  public static let algorithmNotAllowed = Self(rawValue: "algorithmNotAllowed")
  /// No key fit the JWS, or several did and the choice would be ambiguous.
  public static let noMatchingKey = Self(rawValue: "noMatchingKey")
  /// The signature did not verify with the key.
  public static let invalidSignature = Self(rawValue: "invalidSignature")
  /// A JWT claim was missing, of the wrong type, or had a value that failed validation.
  public static let invalidClaims = Self(rawValue: "invalidClaims")
  /// The platform's crypto library failed in a way the input does not explain.
  public static let cryptoFailure = Self(rawValue: "cryptoFailure")
}
