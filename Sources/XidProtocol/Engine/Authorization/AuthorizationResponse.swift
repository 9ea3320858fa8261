import Foundation

/// A successful authorization response (RFC 6749 §4.1.2), checked against the request it answers.
///
/// ``init(callbackURL:pending:requireIssuer:)`` applies the checks in order: the `state` must match
/// one pending request, the URL must be that request's redirect URI, `iss` must be the issuer (RFC
/// 9207), an `error` becomes a typed error, and a `code` must be present. Its `description` shows
/// neither the code nor the state.
public struct AuthorizationResponse: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
  /// The authorization code, to exchange at the token endpoint.
  public let code: String
  /// The pending authorization the response answers. Remove it from storage now: it is single-use.
  public let pending: PendingAuthorization
  /// The `iss` parameter, when the provider sent one (it has been checked).
  public let issuer: String?

  /// Parses and checks a redirect.
  ///
  /// - Parameters:
  ///   - callbackURL: the URL the browser was redirected to.
  ///   - pending: the pending authorizations the app keeps; the response must match one by `state`.
  ///   - requireIssuer: whether `iss` must be present, as when the provider's metadata sets
  ///     `authorization_response_iss_parameter_supported`.
  /// - Throws: ``XidError`` with ``XidError/Code/stateMismatch`` (no or unknown `state`),
  ///   ``XidError/Code/redirectMismatch``, ``XidError/Code/issuerMismatch`` (`iss` differs, or is
  ///   missing although required), ``XidError/Code/authorizationFailed`` (the provider sent `error`;
  ///   ``XidError/oauthError`` holds it), or ``XidError/Code/invalidAuthorizationResponse`` (no `code`,
  ///   or a parameter repeated).
  public init(callbackURL: URL, pending: some Sequence<PendingAuthorization>, requireIssuer: Bool) throws {
    let parameters = callbackURL.queryParameters
    var values: [String: String] = [:]
    for (name, value) in parameters
    where ["state", "code", "iss", "error", "error_description", "error_uri"].contains(name) {
      guard values.updateValue(value, forKey: name) == nil else {
        throw XidError(
          .invalidAuthorizationResponse, "the authorization response repeats the parameter \"\(name)\" (RFC 6749 §3.1)")
      }
    }
    guard let state = values["state"], !state.isEmpty else {
      let inFragment = (callbackURL.fragment ?? "").contains("state=")
      throw XidError(
        .stateMismatch,
        inFragment
          ? "the authorization response is in the URL fragment; Xid expects the query (response_mode=query)"
          : "the authorization response has no state; it does not answer a request of this app")
    }
    guard let match = PendingAuthorization.matching(state: state, in: pending) else {
      throw XidError(
        .stateMismatch,
        "the authorization response's state matches no pending request: it is stale, replayed or forged")
    }
    guard Self.isSameEndpoint(callbackURL, match.redirectUri) else {
      throw XidError(
        .redirectMismatch,
        "the redirect arrived at \(Self.endpointDescription(callbackURL)), not at the request's redirect URI \(Self.endpointDescription(match.redirectUri))"
      )
    }
    if let iss = values["iss"] {
      guard iss == match.issuer else {
        throw XidError(
          .issuerMismatch,
          "the authorization response comes from issuer \"\(SafeText.short(iss))\", not \"\(SafeText.short(match.issuer))\" (RFC 9207); possible mix-up attack"
        )
      }
    } else if requireIssuer {
      throw XidError(
        .issuerMismatch,
        "the authorization response lacks the iss parameter that the provider promises (authorization_response_iss_parameter_supported, RFC 9207)"
      )
    }
    if let error = values["error"] {
      let code = SafeText.errorCode(error)
      var reason = "the authorization endpoint answered with \(code)"
      if let description = values["error_description"] {
        let clean = SafeText.sanitize(description, redacting: [match.state, match.nonce, match.codeVerifier])
        if !clean.isEmpty { reason += ": \(clean)" }
      }
      throw XidError(.authorizationFailed, reason, oauthError: code)
    }
    guard let code = values["code"], !code.isEmpty else {
      throw XidError(.invalidAuthorizationResponse, "the authorization response has neither code nor error")
    }
    self.code = code
    self.pending = match
    self.issuer = values["iss"]
  }

  /// Whether two URLs have the same scheme, host (both compared case-insensitively), port and path.
  /// A missing port equals the scheme's default one (80 for http, 443 for https).
  static func isSameEndpoint(_ lhs: URL, _ rhs: URL) -> Bool {
    guard let left = URLComponents(url: lhs, resolvingAgainstBaseURL: false),
      let right = URLComponents(url: rhs, resolvingAgainstBaseURL: false)
    else { return false }
    func port(_ components: URLComponents) -> Int? {
      if let port = components.port { return port }
      switch components.scheme?.lowercased() {
      case "http": return 80
      case "https": return 443
      default: return nil
      }
    }
    return left.scheme?.lowercased() == right.scheme?.lowercased()
      && left.percentEncodedHost?.lowercased() == right.percentEncodedHost?.lowercased()
      && port(left) == port(right)
      && left.percentEncodedPath == right.percentEncodedPath
      && left.percentEncodedUser == right.percentEncodedUser
  }

  /// `scheme://host:port/path` of a URL, without its query (which may carry the code).
  static func endpointDescription(_ url: URL) -> String {
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(invalid URL)" }
    components.query = nil
    components.fragment = nil
    components.user = nil
    components.password = nil
    return SafeText.short(components.string ?? "(invalid URL)", limit: 200)
  }

  /// `AuthorizationResponse(issuer: …, pending: …)`; never the code or the state.
  public var description: String {
    "AuthorizationResponse(iss: \(issuer ?? "none"), pending: \(pending))"
  }

  /// The fields that are not secret, so that `dump` does not show the code.
  public var customMirror: Mirror { Mirror(self, children: ["issuer": issuer as Any, "pending": pending]) }
}
