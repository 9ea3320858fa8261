/// What a resource server asks of the user's authentication before it serves a request (RFC 9470 §3):
/// the authentication context classes it accepts, and how recent the authentication must be.
///
/// A ``XidError`` with code ``XidError/Code/stepUpRequired`` carries one in ``XidError/stepUp``. Sign
/// the same user in again with it (`SignInOptions(stepUp:)`), then repeat the request.
///
/// ```swift
/// do {
///   let response = try await Xid.shared.send(request)
/// } catch let error as XidError where error.code == .stepUpRequired {
///   try await Xid.shared.signIn(options: SignInOptions(stepUp: error.stepUp!))
/// }
/// ```
public struct StepUpRequirement: Sendable, Hashable, CustomStringConvertible {
  /// `acr_values`: the authentication context classes the resource accepts, in its order of
  /// preference; empty when it names none.
  public var acrValues: [String]
  /// `max_age`: the longest time since the user's authentication that the resource accepts; `nil`
  /// when it sets no limit. Zero asks for an authentication now.
  public var maxAge: Duration?

  /// Creates a requirement.
  public init(acrValues: [String] = [], maxAge: Duration? = nil) {
    self.acrValues = acrValues
    self.maxAge = maxAge
  }

  /// `acr_values "…", max_age … s`, each part when it is set (long values are shortened).
  public var description: String {
    var parts: [String] = []
    if !acrValues.isEmpty {
      let shown = acrValues.prefix(8).map { String($0.prefix(64)) }.joined(separator: " ")
      parts.append("acr_values \"\(shown)\(acrValues.count > 8 ? " …" : "")\"")
    }
    if let maxAge { parts.append("max_age \(maxAge.components.seconds) s") }
    return parts.isEmpty ? "a new authentication" : parts.joined(separator: ", ")
  }
}
