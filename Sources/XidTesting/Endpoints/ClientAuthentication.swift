import Foundation
import XidCore

extension TestProvider {
  /// Authenticates the client of a token, PAR, revocation or device authorization request:
  /// `client_secret_basic`, `client_secret_post`, `private_key_jwt` for a client with an
  /// ``TestClient/assertionKey``, or `none` (the `client_id` alone) for public clients.
  ///
  /// - Throws: `invalid_client` (401) for an unknown client or a wrong, missing or unexpected
  ///   secret; `invalid_request` when the request uses two methods or contradicts itself.
  func authenticateClient(_ request: HTTPRequest, _ parameters: FormParameters) throws -> TestClient {
    var basic: (id: String, secret: String)?
    if let authorization = request.headers["Authorization"] {
      basic = try Self.basicCredentials(authorization)
    }
    let challenge: HTTPHeaders = basic == nil ? [:] : ["WWW-Authenticate": "Basic realm=\"\(issuerIdentifier)\""]
    func invalidClient(_ description: String) -> OAuthFailure {
      OAuthFailure("invalid_client", description, status: 401, headers: challenge)
    }
    if basic != nil, parameters["client_secret"] != nil {
      throw OAuthFailure.invalidRequest("the client authenticated with both client_secret_basic and client_secret_post")
    }
    if let basic, let bodyID = parameters["client_id"], bodyID != basic.id {
      throw OAuthFailure.invalidRequest("the client_id parameter differs from the authenticated client")
    }
    guard let clientId = basic?.id ?? parameters["client_id"] else {
      throw invalidClient("the request names no client (client_id or HTTP Basic authentication)")
    }
    guard let client = configuration.client(clientId) else { throw invalidClient("the client is not registered") }
    if parameters["client_assertion"] != nil || parameters["client_assertion_type"] != nil {
      guard basic == nil, parameters["client_secret"] == nil else {
        throw OAuthFailure.invalidRequest("the client authenticated with a secret and an assertion")
      }
      try checkAssertion(parameters, of: client, postedTo: request.url)
      return client
    }
    if client.assertionKey != nil { throw invalidClient("the client authenticates with private_key_jwt only") }
    let presented = basic?.secret ?? parameters["client_secret"]
    if let secret = client.secret {
      guard let presented, presented == secret else { throw invalidClient("the client secret is missing or wrong") }
    } else if presented != nil {
      throw invalidClient("the client is public and has no secret")
    }
    return client
  }

  /// Checks a `private_key_jwt` assertion (RFC 7523 §3): the client's registered key, `iss` and `sub`
  /// the client, `aud` the issuer identifier (FAPI 2.0) or the URL of the endpoint it was posted to
  /// (OpenID Connect Core §9), unexpired, and a `jti` used once.
  private func checkAssertion(_ parameters: FormParameters, of client: TestClient, postedTo url: URL) throws {
    func invalidClient(_ description: String) -> OAuthFailure {
      OAuthFailure("invalid_client", description, status: 401)
    }
    guard parameters["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      let assertion = parameters["client_assertion"]
    else { throw invalidClient("the client assertion or its type is missing or unknown") }
    guard let key = client.assertionKey else { throw invalidClient("the client has no registered assertion key") }
    let jwt: SignedJWT
    do {
      jwt = try SignedJWT(
        verifying: assertion, using: JWKSet(keys: [try JWSVerificationKey(jwk: key)]),
        allowedAlgorithms: Set(JWSAlgorithm.allCases))
    } catch {
      throw invalidClient("the client assertion's signature does not verify with the registered key")
    }
    let claims = jwt.claims
    guard claims.issuer == client.id, claims.subject == client.id else {
      throw invalidClient("the client assertion's iss and sub must be the client_id")
    }
    guard claims.audience == [issuerIdentifier] || claims.audience == [url.absoluteString] else {
      throw invalidClient("the client assertion's aud must be the issuer identifier or the endpoint's URL")
    }
    guard let expiresAt = claims.expiresAt, expiresAt > clock.now else {
      throw invalidClient("the client assertion has expired or has no exp")
    }
    guard let jti = claims.jwtID, !jti.isEmpty, store.assertionIDs.insert(jti).inserted else {
      throw invalidClient("the client assertion's jti is missing or was used before")
    }
  }

  /// The client ID and secret of an HTTP Basic `Authorization` header, each form-decoded as
  /// RFC 6749 §2.3.1 requires.
  private static func basicCredentials(_ header: String) throws -> (id: String, secret: String) {
    let parts = header.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0].lowercased() == "basic",
      let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
      let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
    else {
      throw OAuthFailure(
        "invalid_client", "the Authorization header is not valid HTTP Basic authentication", status: 401)
    }
    func decode(_ part: Substring) -> String? {
      String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
    guard let id = decode(text[..<colon]), let secret = decode(text[text.index(after: colon)...]) else {
      throw OAuthFailure("invalid_client", "the HTTP Basic credentials are not form-encoded", status: 401)
    }
    return (id, secret)
  }

  /// The access token of an `Authorization: Bearer` header (RFC 6750 §2.1).
  ///
  /// - Throws: a 401 with the bare `Bearer` challenge when there is no `Authorization` header, and
  ///   `invalid_token` when it is not a Bearer token.
  func bearerToken(_ request: HTTPRequest) throws -> String {
    guard let header = request.headers["Authorization"] else {
      throw OAuthFailure(
        "invalid_request", "the request has no access token", status: 401, headers: ["WWW-Authenticate": "Bearer"])
    }
    let parts = header.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else {
      throw TokenStore.invalidToken("the Authorization header is not a Bearer token")
    }
    return String(parts[1]).trimmingCharacters(in: .whitespaces)
  }
}
