import Foundation
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// A scripted OpenID provider at `https://op.example`: discovery, keys, token, PAR, UserInfo,
/// revocation and device endpoints, each replaceable by a test.
///
/// Nothing the provider holds refers back to it strongly: its transport reaches it through a weak
/// reference, and a handler that needs the provider gets it as an argument (`on(_:_:)` with a `ProviderHandler`)
/// rather than capturing it. Otherwise provider → handler → provider is a cycle, and every test's
/// provider, keys and requests outlive the test (LeakSanitizer reports them at exit).
final class FakeProvider: Sendable {
  static let issuer = "https://op.example"
  static let clientId = "client-1"
  static let redirectUri = URL(string: "com.example.app:/callback")!

  typealias Handler = @Sendable (HTTPRequest) throws -> HTTPResponse
  /// A handler that answers with the provider's help: it gets the provider instead of capturing it.
  typealias ProviderHandler = @Sendable (FakeProvider, HTTPRequest) throws -> HTTPResponse

  let signer: JWSSigningKey
  let clock: TestClock
  /// Metadata members added to (or, with `.null`, removed from) the defaults.
  let metadataChanges = LockedValue<[String: JSONValue]>([:])
  /// The keys the JWK Set endpoint publishes.
  let publishedKeys: LockedValue<[JWK]>
  /// Handlers by path, replacing the defaults.
  let handlers = LockedValue<[String: ProviderHandler]>([:])
  /// Claims added to (or, with `.null`, removed from) every ID token the token endpoint issues.
  let idTokenChanges = LockedValue<[String: JSONValue]>([:])
  /// The nonce of the last authorization request seen (plain or pushed).
  let lastNonce = LockedValue<String?>(nil)
  let transport: ScriptedTransport

  init(algorithm: JWSAlgorithm = .es256, clock: TestClock = TestClock(now: Date(timeIntervalSince1970: 1_700_000_000)))
    throws
  {
    let signer = try JWSSigningKey.generate(for: algorithm, keyID: "key-1")
    self.signer = signer
    self.clock = clock
    self.publishedKeys = LockedValue([signer.publicJWK])
    let box = LockedValue(WeakProvider())
    transport = ScriptedTransport { request in
      guard let provider = box.get().provider else { return HTTPResponse(status: 500) }
      return try provider.handle(request)
    }
    box.set(WeakProvider(self))
  }

  var metadata: JSONValue {
    var members: [String: JSONValue] = [
      "issuer": .string(Self.issuer),
      "authorization_endpoint": "https://op.example/authorize",
      "token_endpoint": "https://op.example/token",
      "jwks_uri": "https://op.example/jwks",
      "userinfo_endpoint": "https://op.example/userinfo",
      "revocation_endpoint": "https://op.example/revoke",
      "end_session_endpoint": "https://op.example/logout",
      "device_authorization_endpoint": "https://op.example/device",
      "pushed_authorization_request_endpoint": "https://op.example/par",
      "id_token_signing_alg_values_supported": .array([.string(signer.algorithm.rawValue)]),
      "code_challenge_methods_supported": ["S256"],
      "response_types_supported": ["code"],
      "subject_types_supported": ["public"],
    ]
    for (name, value) in metadataChanges.get() {
      if value == .null { members.removeValue(forKey: name) } else { members[name] = value }
    }
    return .object(members)
  }

  func client(_ configure: (inout XidConfiguration) -> Void = { _ in }) throws -> OpenIDClient {
    var configuration = XidConfiguration(
      issuer: URL(string: Self.issuer)!, clientId: Self.clientId, redirectUri: Self.redirectUri,
      scopes: ["profile"])
    configure(&configuration)
    return try OpenIDClient(configuration: configuration.using(transport: transport, clock: clock))
  }

  func on(_ path: String, _ handler: @escaping Handler) {
    handlers.update { $0[path] = { _, request in try handler(request) } }
  }

  /// Answers requests to `path` with `handler`, which gets this provider as its first argument.
  func on(_ path: String, _ handler: @escaping ProviderHandler) { handlers.update { $0[path] = handler } }

  /// ID token claims as the provider would issue them now, with `changes` applied.
  func idTokenClaims(nonce: String?, accessToken: String? = nil, _ changes: [String: JSONValue] = [:]) -> [String:
    JSONValue]
  {
    let now = Int64(clock.now.timeIntervalSince1970)
    var claims: [String: JSONValue] = [
      "iss": .string(Self.issuer), "sub": "alice", "aud": .string(Self.clientId), "exp": .int(now + 3600),
      "iat": .int(now), "auth_time": .int(now - 10),
    ]
    if let nonce { claims["nonce"] = .string(nonce) }
    if let accessToken { claims["at_hash"] = .string(TokenHash.value(for: accessToken, algorithm: signer.algorithm)) }
    for (name, value) in changes {
      if value == .null { claims.removeValue(forKey: name) } else { claims[name] = value }
    }
    return claims
  }

  func idToken(nonce: String?, accessToken: String? = nil, _ changes: [String: JSONValue] = [:]) throws -> String {
    try signer.sign(claims: idTokenClaims(nonce: nonce, accessToken: accessToken, changes), header: ["typ": "JWT"])
  }

  /// A successful token response with an ID token for the last nonce.
  func tokenResponse(accessToken: String = "access-token-1", idToken: Bool = true, nonce: String? = nil) throws
    -> HTTPResponse
  {
    var body: [String: JSONValue] = [
      "access_token": .string(accessToken), "token_type": "Bearer", "expires_in": 3600,
      "refresh_token": "refresh-token-1", "scope": "openid profile",
    ]
    if idToken {
      body["id_token"] = .string(
        try self.idToken(nonce: nonce ?? lastNonce.get(), accessToken: accessToken, idTokenChanges.get()))
    }
    return .json(.object(body))
  }

  private func handle(_ request: HTTPRequest) throws -> HTTPResponse {
    if let handler = handlers.get()[request.url.path] { return try handler(self, request) }
    switch request.url.path {
    case "/.well-known/openid-configuration": return .json(metadata)
    case "/jwks": return .json(["keys": .array(publishedKeys.get().map { .object($0.members) })])
    case "/token": return try tokenResponse()
    case "/par":
      lastNonce.update { $0 = request.form["nonce"] }
      return .json(["request_uri": "urn:ietf:params:oauth:request_uri:abc", "expires_in": 60], status: 201)
    case "/revoke": return HTTPResponse(status: 200)
    default: return HTTPResponse(status: 404)
    }
  }

  /// Starts an authorization request and builds the redirect the provider would send for it.
  func authorize(
    _ client: OpenIDClient, options: SignInOptions = SignInOptions(), code: String = "code-1",
    extra: [(String, String)] = []
  ) async throws -> (redirect: URL, pending: PendingAuthorization) {
    let request = try await client.makeAuthorizationRequest(options)
    if !request.isPushed { lastNonce.update { $0 = request.url.query["nonce"] } }
    let redirect = request.pending.redirectUri.appendingQuery(
      [("code", code), ("state", request.pending.state)] + extra)
    return (redirect, request.pending)
  }
}

/// The transport's way to the provider that owns it: weak, so that the provider → transport →
/// provider loop does not keep either alive.
private struct WeakProvider: @unchecked Sendable {
  // Only read (the weak load is atomic) once made; made before the provider is shared.
  weak var provider: FakeProvider?
  init(_ provider: FakeProvider? = nil) { self.provider = provider }
}
