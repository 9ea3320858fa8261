import Foundation
import Testing
import XidCore
import XidTesting

/// A provider and a hand-written client that speaks to it at the HTTP level, the way a relying
/// party would, without Xid's protocol engine.
struct Harness {
  static let redirectUri = "com.example.app:/callback"

  let provider: TestProvider
  let clock: TestClock
  let client: TestClient

  init(
    issuer: URL = TestProvider.defaultIssuer, configuration: TestProvider.Configuration = .init(),
    user: TestUser = .alice, client: TestClient = .example
  ) throws {
    var configuration = configuration
    if !configuration.clients.contains(client) { configuration.clients.append(client) }
    clock = TestClock(now: Date(timeIntervalSince1970: 1_800_000_000))
    provider = try TestProvider(issuer: issuer, configuration: configuration, user: user, clock: clock)
    self.client = client
  }

  // MARK: HTTP

  func send(_ request: HTTPRequest) async throws -> HTTPResponse { try await provider.transport.send(request) }

  func get(_ endpoint: TestProvider.Endpoint, bearer: String? = nil) async throws -> HTTPResponse {
    var request = HTTPRequest(url: provider.url(for: endpoint))
    if let bearer { request.headers["Authorization"] = "Bearer \(bearer)" }
    return try await send(request)
  }

  func post(_ endpoint: TestProvider.Endpoint, _ parameters: [(String, String)], headers: HTTPHeaders = [:])
    async throws -> HTTPResponse
  {
    try await send(.form(provider.url(for: endpoint), parameters, headers: headers))
  }

  // MARK: Authorization

  struct PKCE {
    let verifier: String
    let challenge: String

    init() throws {
      verifier = Base64URL.encode(try XidCrypto.randomBytes(count: 32))
      challenge = Base64URL.encode(XidCrypto.sha256(Array(verifier.utf8)))
    }
  }

  /// The parameters of an authorization request; `overrides` replace or (with an empty value) remove.
  func authorizationParameters(
    pkce: PKCE, scope: String = "openid profile email offline_access", state: String = "state-1",
    nonce: String = "nonce-1", overrides: [String: String] = [:]
  ) -> [(String, String)] {
    var parameters = [
      ("response_type", "code"), ("client_id", client.id), ("redirect_uri", Self.redirectUri), ("scope", scope),
      ("state", state), ("nonce", nonce), ("code_challenge", pkce.challenge), ("code_challenge_method", "S256"),
    ]
    for (name, value) in overrides {
      parameters.removeAll { $0.0 == name }
      if !value.isEmpty { parameters.append((name, value)) }
    }
    return parameters
  }

  func authorizationURL(_ parameters: [(String, String)]) -> URL {
    provider.url(for: .authorization).appendingQuery(parameters)
  }

  /// Opens an authorization URL in the test browser and returns the callback's parameters.
  func authorize(_ parameters: [(String, String)]) async throws -> [String: String] {
    let callback = try await provider.browser.redirect(from: authorizationURL(parameters))
    #expect(callback.absoluteString.hasPrefix(Self.redirectUri + "?"))
    return Self.dictionary(callback.queryParameters)
  }

  func exchange(code: String, verifier: String, redirectUri: String = redirectUri) async throws -> HTTPResponse {
    try await post(
      .token,
      [
        ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectUri),
        ("code_verifier", verifier), ("client_id", client.id),
      ])
  }

  func refresh(_ refreshToken: String, scope: String? = nil) async throws -> HTTPResponse {
    var parameters = [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", client.id)]
    if let scope { parameters.append(("scope", scope)) }
    return try await post(.token, parameters)
  }

  /// The tokens of a successful token response.
  struct Tokens {
    let accessToken: String
    let refreshToken: String?
    let idToken: String?
    let json: JSONValue

    init(_ response: HTTPResponse) throws {
      #expect(
        response.status == 200, "token response \(response.status): \(String(decoding: response.body, as: UTF8.self))")
      json = try JSONValue(parsing: Array(response.body))
      accessToken = try #require(json["access_token"]?.stringValue)
      refreshToken = json["refresh_token"]?.stringValue
      idToken = json["id_token"]?.stringValue
    }
  }

  /// The whole authorization code flow, as an RP does it.
  func signIn(scope: String = "openid profile email offline_access", nonce: String = "nonce-1") async throws -> Tokens {
    let pkce = try PKCE()
    let callback = try await authorize(authorizationParameters(pkce: pkce, scope: scope, nonce: nonce))
    let code = try #require(callback["code"], "no code in \(callback)")
    return try Tokens(await exchange(code: code, verifier: pkce.verifier))
  }

  // MARK: Verification

  func keySet() async throws -> JWKSet {
    let response = try await get(.jwks)
    #expect(response.status == 200)
    return try JWKSet(parsing: Array(response.body))
  }

  /// Verifies an ID token's signature against the provider's current JWKS and returns its claims.
  func verify(_ idToken: String) async throws -> JWTClaims {
    try SignedJWT(verifying: idToken, using: await keySet(), allowedAlgorithms: Set(JWSAlgorithm.allCases)).claims
  }

  // MARK: Helpers

  static func json(_ response: HTTPResponse) throws -> JSONValue { try JSONValue(parsing: Array(response.body)) }

  static func oauthError(_ response: HTTPResponse) -> String? { (try? json(response))?["error"]?.stringValue }

  static func dictionary(_ pairs: [(String, String)]) -> [String: String] {
    Dictionary(pairs, uniquingKeysWith: { first, _ in first })
  }

  /// The decoded header and payload of a compact JWS, without verifying it.
  static func decode(_ token: String) throws -> (header: JSONValue, claims: JSONValue, signature: String) {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    try #require(parts.count == 3)
    return (
      try JSONValue(parsing: Base64URL.decode(parts[0])), try JSONValue(parsing: Base64URL.decode(parts[1])), parts[2]
    )
  }

  /// The expected `at_hash` of `accessToken` for ES256, RS256 and PS256.
  static func sha256Hash(_ accessToken: String) -> String {
    Base64URL.encode(XidCrypto.sha256(Array(accessToken.utf8)).prefix(16))
  }
}
