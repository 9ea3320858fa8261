import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

/// `private_key_jwt` client authentication (RFC 7523, OpenID Connect Core §9): every request to the
/// token, pushed authorization and revocation endpoints carries a new assertion by the client for
/// the issuer, signed with the key the app gives.
@Suite(.noSecretLeaks)
struct PrivateKeyJWTTests {
  /// Keeps every form the client posts.
  final class FormRecorder: HTTPTransport, @unchecked Sendable {
    let base: any HTTPTransport
    private let lock = NSLock()
    private var forms: [(path: String, parameters: [String: String])] = []
    init(_ base: any HTTPTransport) { self.base = base }
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
      if request.method == "POST" {
        let pairs = URLComponents(string: "?" + String(decoding: request.body, as: UTF8.self))?.queryItems ?? []
        let parameters = Dictionary(pairs.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
        lock.withLock { forms.append((request.url.path, parameters)) }
      }
      return try await base.send(request)
    }
    var assertions: [(path: String, assertion: String)] {
      lock.withLock { forms.compactMap { form in form.parameters["client_assertion"].map { (form.path, $0) } } }
    }
  }

  static func harness(
    key: any ClientAssertionKey, registered: JWK, configure: (inout TestProvider.Configuration) -> Void = { _ in },
    dpop: Bool = false, audience: ClientAssertionAudience = .issuer
  ) throws -> (SessionHarness, FormRecorder) {
    var configuration = TestProvider.Configuration()
    var client = TestClient.example
    client.id = "server-app"
    client.assertionKey = registered
    configuration.clients = [client]
    configure(&configuration)
    let provider = try TestProvider(configuration: configuration)
    let recorder = FormRecorder(provider.transport)
    let logger = RecordingLogger()
    var xid = SessionHarness.configuration(provider, logger: logger, transport: recorder)
    xid.identity.clientId = "server-app"
    xid.identity.clientAuthentication = .privateKeyJWT(key: key, audience: audience)
    xid.usesDPoP = dpop
    xid.policy.prefersPushedAuthorization = true
    let harness = try SessionHarness(
      provider: provider, storage: InMemoryTokenStorage(), logger: logger, configuration: xid)
    return (harness, recorder)
  }

  @Test func aClientWithItsKeySignsInThroughPARRefreshesAndRevokes() async throws {
    let key = try JWSSigningKey.generate(for: .es256, keyID: "server-key-1")
    let (harness, recorder) = try Self.harness(key: key, registered: key.publicJWK)
    try await harness.xid.signIn()
    harness.provider.clock.advance(by: .seconds(301))
    _ = try await harness.xid.getAccessToken()
    try await harness.xid.signOut()
    #expect(await harness.provider.counters.refreshes == 1)
    #expect(await harness.provider.counters.revocations == 1)
    let paths = recorder.assertions.map(\.path)
    #expect(paths.contains("/par") && paths.contains("/token") && paths.contains("/revoke"), "\(paths)")
  }

  /// OpenID Connect Core §9's audience, which some providers (glewlwyd) require: the URL of the
  /// endpoint each assertion is posted to.
  @Test func anEndpointAudienceNamesEachEndpointsURL() async throws {
    let key = try JWSSigningKey.generate(for: .es256, keyID: "server-key-1")
    let (harness, recorder) = try Self.harness(key: key, registered: key.publicJWK, audience: .endpoint)
    try await harness.xid.signIn()
    try await harness.xid.signOut()
    let verifier = JWKSet(keys: [try key.verificationKey()])
    for (path, assertion) in recorder.assertions {
      let jwt = try SignedJWT(verifying: assertion, using: verifier, allowedAlgorithms: [.es256])
      #expect(jwt.claims.audience == [harness.provider.issuer.absoluteString + path])
    }
    #expect(Set(recorder.assertions.map(\.path)) == ["/par", "/token", "/revoke"])
    #expect(
      ClientAuthentication.privateKeyJWT(key: key, audience: .endpoint) != .privateKeyJWT(key: key),
      "the audience is part of the method")
  }

  @Test func everyRequestCarriesANewAssertionByTheClientForTheIssuer() async throws {
    let key = try JWSSigningKey.generate(for: .es256, keyID: "server-key-1")
    let (harness, recorder) = try Self.harness(key: key, registered: key.publicJWK)
    try await harness.xid.signIn()
    let verifier = JWKSet(keys: [try key.verificationKey()])
    var seen = Set<String>()
    for (_, assertion) in recorder.assertions {
      let jwt = try SignedJWT(verifying: assertion, using: verifier, allowedAlgorithms: [.es256])
      #expect(jwt.jws.header.keyID == "server-key-1")
      #expect(jwt.claims.issuer == "server-app" && jwt.claims.subject == "server-app")
      #expect(jwt.claims.audience == [harness.provider.issuer.absoluteString])
      let lifetime = try #require(jwt.claims.expiresAt).timeIntervalSince(try #require(jwt.claims.issuedAt))
      #expect(lifetime == 60)
      #expect(seen.insert(try #require(jwt.claims.jwtID)).inserted)
    }
    #expect(seen.count >= 2)
  }

  /// A DPoP nonce challenge makes the client post the form again: with a new assertion, since the
  /// provider accepts each `jti` once.
  @Test func aRequestSentAgainForADPoPNonceCarriesANewAssertion() async throws {
    let key = try JWSSigningKey.generate(for: .es256)
    let (harness, recorder) = try Self.harness(
      key: key, registered: key.publicJWK, configure: { $0.dpop.requiresNonce = true }, dpop: true)
    try await harness.xid.signIn()
    #expect(await harness.provider.counters.dpopNonceChallenges >= 1)
    let assertions = recorder.assertions.map(\.assertion)
    #expect(Set(assertions).count == assertions.count)
  }

  @Test func aSecureEnclaveStyleP256KeySignsTheAssertions() async throws {
    let (dpopKey, _) = try SoftwareDPoPKeyFactory().makeKey()
    let key = P256ClientAssertionKey(key: dpopKey)
    #expect(key.assertionKeyID == dpopKey.thumbprint)
    var registered = dpopKey.publicJWK.members
    registered["kid"] = .string(dpopKey.thumbprint)
    let (harness, _) = try Self.harness(key: key, registered: try JWK(json: .object(registered)))
    try await harness.xid.signIn()
    #expect(try await harness.xid.getSession() != nil)
  }

  @Test func anAssertionByAnotherKeyIsRefusedAndNothingIsStored() async throws {
    let registered = try JWSSigningKey.generate(for: .es256)
    let other = try JWSSigningKey.generate(for: .es256)
    let (harness, _) = try Self.harness(key: other, registered: registered.publicJWK)
    let error = await expectXidError(.pushedAuthorizationFailed) { try await harness.xid.signIn() }
    #expect(error?.oauthError == "invalid_client")
    #expect(try harness.storedRecord() == nil)
  }

  @Test func theMethodShowsItsNameAndNeverItsKey() {
    let method = ClientAuthentication.privateKeyJWT(key: P256ClientAssertionKey(key: FixedKey(), keyID: "k1"))
    #expect(method.description == "private_key_jwt")
    var dumped = ""
    dump(method, to: &dumped)
    #expect(dumped.contains("private_key_jwt") && !dumped.contains("f83OJ3D2"))
    #expect(method == .privateKeyJWT(key: P256ClientAssertionKey(key: FixedKey(), keyID: "k1")))
    #expect(method != .privateKeyJWT(key: P256ClientAssertionKey(key: FixedKey(), keyID: "k2")))
  }

  struct FixedKey: DPoPKey {
    var publicJWK: JWK {
      try! JWK(json: [
        "kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
        "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
      ])
    }
    var thumbprint: String { "fixed" }
    var isHardwareBacked: Bool { true }
    func sign(_ message: [UInt8]) throws -> [UInt8] { [UInt8](repeating: 0, count: 64) }
  }
}
