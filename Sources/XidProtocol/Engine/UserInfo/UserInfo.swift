import Foundation

/// The claims the UserInfo endpoint returned about the signed-in user (OpenID Connect Core 1.0 §5.3),
/// checked to be about the ID token's user.
public struct UserInfo: Sendable, Hashable {
  /// `sub`: equal to the ID token's.
  public let subject: String
  /// Every claim, as JSON.
  public let claims: [String: JSONValue]

  /// Creates user info from a UserInfo response object.
  ///
  /// - Parameter expectedSubject: the `sub` of the ID token; the response's `sub` must equal it.
  /// - Throws: ``XidError/Code/userInfoMismatch`` when `sub` is missing or differs.
  public init(claims: [String: JSONValue], expectedSubject: String) throws {
    guard let subject = claims["sub"]?.stringValue else {
      throw XidError(.userInfoMismatch, "the UserInfo response has no string \"sub\" claim")
    }
    guard subject == expectedSubject else {
      throw XidError(
        .userInfoMismatch,
        "the UserInfo response is about another user than the ID token (\"sub\" differs); do not use it")
    }
    self.subject = subject
    self.claims = claims
  }

  /// The claim named `name`.
  public subscript(name: String) -> JSONValue? { claims[name] }

  /// `name`, when present as a string.
  public var name: String? { claims["name"]?.stringValue }
  /// `email`, when present as a string.
  public var email: String? { claims["email"]?.stringValue }
  /// `email_verified`, when present as a Boolean.
  public var emailVerified: Bool? { claims["email_verified"]?.boolValue }
  /// `preferred_username`, when present as a string.
  public var preferredUsername: String? { claims["preferred_username"]?.stringValue }
}

/// Requests to the UserInfo endpoint.
enum UserInfoEndpoint {
  static let name = "UserInfo endpoint"

  /// Fetches the user's claims with a bearer access token (RFC 6750 §2.1).
  ///
  /// - Throws: ``XidError/Code/unsupportedByProvider`` without a `userinfo_endpoint`,
  ///   ``XidError/Code/userInfoFailed`` (with status and the `WWW-Authenticate` error) on refusal,
  ///   ``XidError/Code/unsupportedResponse`` for a signed or encrypted (`application/jwt`) response,
  ///   ``XidError/Code/unexpectedResponse`` for other non-JSON bodies, and
  ///   ``XidError/Code/userInfoMismatch``.
  ///
  /// With `dpop`, the token is sent as `Authorization: DPoP` with a proof carrying `ath`, and a
  /// `use_dpop_nonce` challenge is retried once with the server's nonce.
  static func fetch(
    accessToken: String, expectedSubject: String, metadata: ProviderMetadata, http: ProtocolHTTP,
    dpop: DPoPSigner? = nil
  ) async throws -> UserInfo {
    guard let endpoint = metadata.userInfoEndpoint else {
      throw XidError(.unsupportedByProvider, "the provider advertises no userinfo_endpoint")
    }
    let request = HTTPRequest(url: endpoint)
    let response: HTTPResponse
    if let dpop {
      var bound = request
      bound.headers["Authorization"] = "DPoP " + accessToken
      response = try await http.send(bound, proving: dpop, accessToken: accessToken, endpoint: name)
    } else {
      response = try await http.send(request.authorized(with: accessToken), endpoint: name)
    }
    guard response.isSuccess else {
      throw ProtocolHTTP.failure(response, code: .userInfoFailed, endpoint: name, secrets: [accessToken])
    }
    if ProtocolHTTP.mediaType(of: response) == "application/jwt" {
      throw XidError(
        .unsupportedResponse,
        "the UserInfo endpoint answered with a signed or encrypted JWT (application/jwt), which Xid does not accept; register the client for plain JSON UserInfo responses",
        httpStatus: response.status)
    }
    let claims = try ProtocolHTTP.jsonObject(response, endpoint: name)
    return try UserInfo(claims: claims, expectedSubject: expectedSubject)
  }
}
