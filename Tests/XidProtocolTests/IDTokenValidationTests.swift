import Foundation
import Testing
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// One test per rule of OpenID Connect Core 1.0 §3.1.3.7 (and §3.1.3.8 for `at_hash`), each with a
/// token that passes and one that fails.
struct IDTokenValidationTests {
  let signer: JWSSigningKey
  let keySet: JWKSet
  let now = Date(timeIntervalSince1970: 1_700_000_000)
  let validator: IDTokenValidator
  let nonce = "nonce-abc"
  let accessToken = "access-token-xyz"

  init() throws {
    signer = try JWSSigningKey.generate(for: .es256, keyID: "k1")
    keySet = JWKSet(keys: [try signer.verificationKey()])
    validator = IDTokenValidator(issuer: "https://op.example", clientId: "client-1", allowedAlgorithms: [.es256])
  }

  var nowSeconds: Int64 { Int64(now.timeIntervalSince1970) }

  /// Valid claims with `changes` applied (`.null` removes a claim).
  func claims(_ changes: [String: JSONValue] = [:]) -> [String: JSONValue] {
    var claims: [String: JSONValue] = [
      "iss": "https://op.example", "sub": "alice", "aud": "client-1", "exp": .int(nowSeconds + 600),
      "iat": .int(nowSeconds), "nonce": .string(nonce), "auth_time": .int(nowSeconds - 100),
    ]
    for (name, value) in changes {
      if value == .null { claims.removeValue(forKey: name) } else { claims[name] = value }
    }
    return claims
  }

  func token(_ changes: [String: JSONValue] = [:], by key: JWSSigningKey? = nil) throws -> String {
    try (key ?? signer).sign(claims: claims(changes))
  }

  @discardableResult
  func validate(
    _ token: String, maxAge: Int? = nil, accessToken: String? = nil, code: String? = nil, at time: Date? = nil,
    validator: IDTokenValidator? = nil
  ) throws -> IDToken {
    try (validator ?? self.validator).validate(
      token, purpose: .authentication(nonce: nonce, maxAge: maxAge.map { .seconds($0) }), accessToken: accessToken,
      authorizationCode: code, keySet: keySet, now: time ?? now)
  }

  @Test func validTokenPasses() throws {
    let idToken = try validate(try token())
    #expect(idToken.subject == "alice")
    #expect(idToken.issuer == "https://op.example")
    #expect(idToken.algorithm == .es256)
    #expect(!"\(idToken)".contains(idToken.compact))
  }

  @Test func issuerMustEqualTheProviderExactly() throws {
    expectXidError(.invalidIDToken) { try validate(try token(["iss": "https://evil.example"])) }
    expectXidError(.invalidIDToken) { try validate(try token(["iss": "https://op.example/"])) }
    expectXidError(.invalidIDToken) { try validate(try token(["iss": .null])) }
  }

  @Test func subjectIsRequired() throws {
    expectXidError(.invalidIDToken) { try validate(try token(["sub": .null])) }
    expectXidError(.invalidIDToken) { try validate(try token(["sub": ""])) }
  }

  @Test func audienceAsStringMustBeTheClient() throws {
    try validate(try token(["aud": "client-1"]))
    expectXidError(.invalidIDToken) { try validate(try token(["aud": "client-2"])) }
    expectXidError(.invalidIDToken) { try validate(try token(["aud": .null])) }
  }

  @Test func audienceAsArrayMustContainTheClient() throws {
    try validate(try token(["aud": ["client-1"]]))
    expectXidError(.invalidIDToken) { try validate(try token(["aud": ["client-2"]])) }
    expectXidError(.invalidIDToken) { try validate(try token(["aud": []])) }
  }

  @Test func severalAudiencesRequireAzpEqualToTheClient() throws {
    try validate(try token(["aud": ["client-1", "api"], "azp": "client-1"]))
    expectXidError(.invalidIDToken) { try validate(try token(["aud": ["client-1", "api"]])) }
    expectXidError(.invalidIDToken) { try validate(try token(["aud": ["client-1", "api"], "azp": "api"])) }
  }

  @Test func azpWhenPresentMustBeTheClient() throws {
    try validate(try token(["azp": "client-1"]))
    expectXidError(.invalidIDToken) { try validate(try token(["azp": "client-2"])) }
  }

  @Test func expiredTokenIsRefusedBeyondTheLeeway() throws {
    try validate(try token(["exp": .int(nowSeconds - 59)]))
    expectXidError(.invalidIDToken) { try validate(try token(["exp": .int(nowSeconds - 61)])) }
    expectXidError(.invalidIDToken) { try validate(try token(["exp": .null])) }
  }

  @Test func leewayIsConfigurable() throws {
    let strict = IDTokenValidator(
      issuer: "https://op.example", clientId: "client-1", allowedAlgorithms: [.es256], leeway: .seconds(0))
    expectXidError(.invalidIDToken) { try validate(try token(["exp": .int(nowSeconds - 1)]), validator: strict) }
    expectXidError(.invalidIDToken) { try validate(try token(["iat": .int(nowSeconds + 1)]), validator: strict) }
    let lenient = IDTokenValidator(
      issuer: "https://op.example", clientId: "client-1", allowedAlgorithms: [.es256], leeway: .seconds(300))
    try validate(try token(["exp": .int(nowSeconds - 299)]), validator: lenient)
  }

  @Test func issuedAtIsRequired() throws {
    expectXidError(.invalidIDToken) { try validate(try token(["iat": .null])) }
  }

  @Test func issuedAtInTheFutureIsRefusedBeyondTheLeeway() throws {
    try validate(try token(["iat": .int(nowSeconds + 59)]))
    expectXidError(.invalidIDToken) { try validate(try token(["iat": .int(nowSeconds + 61)])) }
  }

  @Test func validationUsesTheInjectedTime() throws {
    let idToken = try token()
    try validate(idToken, at: now.addingTimeInterval(600))
    expectXidError(.invalidIDToken) { try validate(idToken, at: now.addingTimeInterval(661)) }
    expectXidError(.invalidIDToken) { try validate(idToken, at: now.addingTimeInterval(-61)) }
  }

  @Test func nonceMustEqualTheRequests() throws {
    try validate(try token(["nonce": .string(nonce)]))
    let error = expectXidError(.invalidIDToken) { try validate(try token(["nonce": "other-nonce"])) }
    #expect(error?.reason.contains(nonce) == false)
    #expect(error?.reason.contains("other-nonce") == false)
    expectXidError(.invalidIDToken) { try validate(try token(["nonce": .null])) }
  }

  @Test func accessTokenHashMustMatchWhenPresent() throws {
    let atHash = TokenHash.value(for: accessToken, algorithm: .es256)
    try validate(try token(["at_hash": .string(atHash)]), accessToken: accessToken)
    try validate(try token(), accessToken: accessToken)  // at_hash is optional in the code flow
    expectXidError(.invalidIDToken) {
      try validate(try token(["at_hash": .string(atHash)]), accessToken: "another-access-token")
    }
  }

  @Test func codeHashMustMatchWhenPresent() throws {
    let cHash = TokenHash.value(for: "code-1", algorithm: .es256)
    try validate(try token(["c_hash": .string(cHash)]), code: "code-1")
    expectXidError(.invalidIDToken) { try validate(try token(["c_hash": .string(cHash)]), code: "code-2") }
  }

  @Test func tokenHashIsTheLeftHalfOfSHA256ForRS256AndSHA512ForEdDSA() {
    // Vectors from panva/oidc-token-hash (SHA-512 for Ed25519 per OpenID Connect issue #1125).
    let token =
      "YmJiZTAwYmYtMzgyOC00NzhkLTkyOTItNjJjNDM3MGYzOWIy9sFhvH8K_x8UIHj1osisS57f5DduL-ar_qw5jl3lthwpMjm283aVMQXDmoqqqydDSqJfbhptzw8rUVwkuQbolw"
    #expect(TokenHash.value(for: token, algorithm: .rs256) == "x7vk7f6BvQj0jQHYFIk4ag")
    #expect(TokenHash.value(for: token, algorithm: .es256) == "x7vk7f6BvQj0jQHYFIk4ag")
    #expect(TokenHash.value(for: token, algorithm: .edDSA) == "EGEAhGYyfuwDaVTifvrWSoD5MSy_5hZPy6I7Vm-7pTQ")
  }

  @Test func authTimeIsRequiredAndRecentWhenMaxAgeWasSent() throws {
    try validate(try token(["auth_time": .int(nowSeconds - 300)]), maxAge: 300)
    try validate(try token(["auth_time": .int(nowSeconds - 359)]), maxAge: 300)  // leeway
    expectXidError(.invalidIDToken) { try validate(try token(["auth_time": .int(nowSeconds - 361)]), maxAge: 300) }
    expectXidError(.invalidIDToken) { try validate(try token(["auth_time": .null]), maxAge: 300) }
    try validate(try token(["auth_time": .null]))  // not required without max_age
  }

  @Test func maxAgeZeroRequiresAFreshAuthentication() throws {
    try validate(try token(["auth_time": .int(nowSeconds - 5)]), maxAge: 0)
    expectXidError(.invalidIDToken) { try validate(try token(["auth_time": .int(nowSeconds - 120)]), maxAge: 0) }
  }

  @Test func algorithmOutsideTheAllowedSetIsRefusedWhateverTheHeaderSays() throws {
    let rsaValidator = IDTokenValidator(issuer: "https://op.example", clientId: "client-1", allowedAlgorithms: [.rs256])
    // An ES256 token whose key is in the set: the provider said RS256, so it is refused.
    expectXidError(.algorithmNotAllowed) { try validate(try token(), validator: rsaValidator) }
  }

  @Test func unsignedAndHMACTokensAreRefused() throws {
    let payload = Base64URL.encode(JSONValue.object(claims()).serializedBytes())
    let none = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + payload + "."
    expectXidError(.algorithmNotAllowed) { try validate(none) }
    let hmac = Base64URL.encode(Array(#"{"alg":"HS256","kid":"k1"}"#.utf8)) + "." + payload + ".c2ln"
    expectXidError(.algorithmNotAllowed) { try validate(hmac) }
  }

  @Test func tokenTypedAsAnotherKindOfJWTIsRefused() throws {
    try validate(try signer.sign(claims: claims(), header: ["typ": "JWT"]))
    for type in ["at+jwt", "application/at+JWT", "logout+jwt"] {
      expectXidError(.invalidIDToken) {
        try validate(try signer.sign(claims: claims(), header: ["typ": .string(type)]))
      }
    }
  }

  @Test func signatureByAnotherKeyIsRefused() throws {
    let other = try JWSSigningKey.generate(for: .es256, keyID: "k1")
    expectXidError(.invalidSignature) { try validate(try token(by: other)) }
  }

  @Test func malformedTokenIsAnInvalidIDToken() throws {
    expectXidError(.invalidIDToken) { try validate("not-a-jwt") }
    let encrypted = "eyJhbGciOiJSU0EtT0FFUCJ9.a.b.c.d"
    expectXidError(.invalidIDToken) { try validate(encrypted) }
  }

  @Test func claimOfTheWrongTypeIsAnInvalidIDToken() throws {
    expectXidError(.invalidIDToken) { try validate(try token(["exp": "tomorrow"])) }
    expectXidError(.invalidIDToken) { try validate(try token(["aud": 42])) }
  }

  @Test func refreshedTokenMustKeepIssSubAudAndAzp() throws {
    let original = try validate(try token())
    @discardableResult
    func refreshed(_ changes: [String: JSONValue]) throws -> IDToken {
      var changes = changes
      if changes["nonce"] == nil { changes["nonce"] = .null }
      return try validator.validate(
        try token(changes), purpose: .refresh(original: original), accessToken: nil, keySet: keySet, now: now)
    }
    #expect(try refreshed([:]).subject == "alice")  // no nonce required
    try refreshed(["nonce": .string(nonce)])  // the original's nonce is allowed
    expectXidError(.invalidIDToken) { try refreshed(["sub": "mallory"]) }
    expectXidError(.invalidIDToken) { try refreshed(["aud": ["client-1", "api"], "azp": "client-1"]) }
    expectXidError(.invalidIDToken) { try refreshed(["azp": "client-1"]) }
    expectXidError(.invalidIDToken) { try refreshed(["nonce": "another-nonce"]) }
    expectXidError(.invalidIDToken) { try refreshed(["auth_time": .int(nowSeconds)]) }
  }

  @Test func idTokenSurvivesCodableRoundTrip() throws {
    let original = try validate(try token())
    let decoded = try JSONDecoder().decode(IDToken.self, from: try JSONEncoder().encode(original))
    #expect(decoded == original)
    #expect(decoded.claims == original.claims)
    #expect(decoded.algorithm == .es256)
  }
}
