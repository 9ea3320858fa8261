import Foundation
import Testing
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// The proofs Xid makes (RFC 9449 §4.2) and the keys it makes them with.
struct DPoPProofTests {
  static func key() throws -> any DPoPKey { try SoftwareDPoPKeyFactory().makeKey().key }

  @Test func aProofHasTheHeaderAndClaimsRFC9449Requires() throws {
    let key = try Self.key()
    let url = URL(string: "https://api.example.com/v1/items?page=2#top")!
    let proof = try DPoPProof.make(
      key: key, method: "PATCH", url: url, accessToken: "token-1", nonce: "n-1",
      issuedAt: Date(timeIntervalSince1970: 1_700_000_123.9))
    let jws = try CompactJWS(parsing: proof)
    #expect(jws.header.type == "dpop+jwt")
    #expect(jws.header.algorithm == "ES256")
    #expect(jws.header.keyID == nil)
    let jwk = try #require(jws.header.members["jwk"]?.objectValue)
    #expect(Set(jwk.keys) == ["kty", "crv", "x", "y"])
    let headerKey = try JWK(json: .object(jwk))
    #expect(headerKey.thumbprint == key.thumbprint)
    try jws.verify(with: JWSVerificationKey(jwk: headerKey), allowedAlgorithms: [.es256])

    let claims = try #require(try JSONValue(parsing: jws.payload).objectValue)
    #expect(Set(claims.keys) == ["jti", "htm", "htu", "iat", "ath", "nonce"])
    #expect(try Base64URL.decode(#require(claims["jti"]?.stringValue)).count == 16)
    #expect(claims["htm"] == "PATCH")
    #expect(claims["htu"] == "https://api.example.com/v1/items")
    #expect(claims["iat"] == .int(1_700_000_123))
    #expect(claims["ath"]?.stringValue == DPoPProof.accessTokenHash("token-1"))
    #expect(claims["nonce"] == "n-1")
  }

  /// The claims are written byte by byte (a proof is made for every request): their JSON is pinned
  /// whole, in its order and spacing, with a URL whose empty path becomes `/` and values that need
  /// escaping.
  @Test(
    arguments: [
      (
        "https://API.example.com:8443/v1/a%20b?page=2#top", "GET", "tok-1", "n-1",
        #","htm":"GET","htu":"https://API.example.com:8443/v1/a%20b","iat":1700000123,"ath":"\#(DPoPProof.accessTokenHash("tok-1"))","nonce":"n-1"}"#
      ),
      ("https://rs.example?x=1", "POST", nil, nil, #","htm":"POST","htu":"https://rs.example/","iat":1700000123}"#),
      (
        "http://127.0.0.1:4593/token", "POST", nil, "q\"b\\",
        #","htm":"POST","htu":"http://127.0.0.1:4593/token","iat":1700000123,"nonce":"q\"b\\"}"#
      ),
    ] as [(String, String, String?, String?, String)])
  func theClaimsAreExactlyTheJSONOfTheirValues(
    url: String, method: String, accessToken: String?, nonce: String?, afterJTI: String
  ) throws {
    let proof = try DPoPProof.make(
      key: Self.key(), method: method, url: URL(string: url)!, accessToken: accessToken, nonce: nonce,
      issuedAt: Date(timeIntervalSince1970: 1_700_000_123.9))
    let payload = String(decoding: try CompactJWS(parsing: proof).payload, as: UTF8.self)
    #expect(payload.hasPrefix(#"{"jti":""#))
    let jti = payload.dropFirst(8).prefix(22)
    #expect(try Base64URL.decode(jti).count == 16)
    #expect(payload.dropFirst(8 + 22) == "\"" + afterJTI)
  }

  /// glewlwyd refuses a proof whose `iat` is ahead of its clock, which it reads with `time()`: the
  /// kernel's coarse clock, a few milliseconds behind the one `Date()` reads. A proof made just after
  /// a second began was refused as issued in the future about once in a hundred.
  @Test func aProofIsDatedASecondEarlySoAServerWhoseClockLagsAcceptsIt() throws {
    let sessionKey = PreparedDPoPKey(try Self.key())
    let justAfterASecond = Date(timeIntervalSince1970: 1_700_000_124.0005)
    let sessionProof = try sessionKey.proof(
      method: "GET", url: URL(string: "https://api.example.com/me")!, accessToken: "token-1", nonce: nil,
      now: justAfterASecond)
    #expect(try Self.issuedAt(of: sessionProof) == 1_700_000_123)

    let before = Date().timeIntervalSince1970.rounded(.down)
    let ownProof = try DPoPProof.make(key: Self.key(), method: "GET", url: URL(string: "https://api.example.com/me")!)
    let after = Date().timeIntervalSince1970.rounded(.down)
    let issuedAt = try #require(try Self.issuedAt(of: ownProof))
    #expect(Double(issuedAt) >= before - DPoPProof.issuedAtMargin)
    #expect(Double(issuedAt) <= after - DPoPProof.issuedAtMargin)
  }

  static func issuedAt(of proof: String) throws -> Int64? {
    try JSONValue(parsing: CompactJWS(parsing: proof).payload)["iat"]?.int64Value
  }

  @Test func aProofToTheTokenEndpointHasNoAccessTokenHashAndNoNonceUntilOneIsGiven() throws {
    let proof = try DPoPProof.make(key: Self.key(), method: "POST", url: URL(string: "https://op.example/token")!)
    let claims = try #require(try JSONValue(parsing: CompactJWS(parsing: proof).payload).objectValue)
    #expect(Set(claims.keys) == ["jti", "htm", "htu", "iat"])
  }

  @Test func valuesThatNeedEscapingStayValidJSON() throws {
    let proof = try DPoPProof.make(
      key: Self.key(), method: "GET", url: URL(string: "https://a.example/x")!, nonce: "quote\" back\\ é\u{1}")
    let claims = try JSONValue(parsing: CompactJWS(parsing: proof).payload)
    #expect(claims["nonce"] == "quote\" back\\ é\u{1}")
  }

  /// Strings are checked eight bytes at a time for what JSON must escape (RFC 8259 §7): each such
  /// byte, at every position of strings around the word size, makes the value escaped and read back
  /// as it was, and the bytes that need no escape (DEL and non-ASCII included) stay as they are.
  @Test func everyByteThatNeedsEscapingIsFoundWhereverItStands() throws {
    let key = try Self.key()
    for special in ["\"", "\\", "\u{0}", "\n", "\u{1F}"] {
      for length in [1, 7, 8, 9, 15, 16, 17, 23] {
        for position in 0..<length {
          var characters = Array(repeating: "a", count: length)
          characters[position] = special
          let nonce = characters.joined()
          let proof = try DPoPProof.make(
            key: key, method: "GET", url: URL(string: "https://a.example/x")!, nonce: nonce)
          let payload = String(decoding: try CompactJWS(parsing: proof).payload, as: UTF8.self)
          #expect(try JSONValue(parsing: payload)["nonce"] == .string(nonce))
          #expect(
            !payload.contains(#""nonce":"\#(nonce)""#),
            "a \(special.unicodeScalars.first!.value) at \(position) of \(length) was not escaped")
        }
      }
    }
    let plain = "~ !#$%&'()*+,-./09:;<=>?@AZ[]^_`az{|}\u{7F}é\u{80}\u{10FFFF}"
    let proof = try DPoPProof.make(key: key, method: "GET", url: URL(string: "https://a.example/x")!, nonce: plain)
    #expect(String(decoding: try CompactJWS(parsing: proof).payload, as: UTF8.self).contains(#""nonce":"\#(plain)""#))
  }

  /// A proof made with the token and a session's proof, which hashes each token once, carry the
  /// same `ath`.
  @Test func theAccessTokenHashIsTheSameWhetherTheProofHashesTheTokenOrASessionDid() throws {
    let key = try Self.key()
    let url = URL(string: "https://rs.example/v1")!
    let now = Date(timeIntervalSince1970: 1_700_000_124)
    let direct = try DPoPProof.make(key: key, method: "GET", url: url, accessToken: "at-7", issuedAt: now)
    let session = try PreparedDPoPKey(key).proof(method: "GET", url: url, accessToken: "at-7", nonce: nil, now: now)
    for proof in [direct, session] {
      let claims = try JSONValue(parsing: CompactJWS(parsing: proof).payload)
      #expect(claims["ath"] == .string(DPoPProof.accessTokenHash("at-7")))
    }
  }

  @Test(arguments: [
    ("https://op.example/api/oidc/token", "https://op.example/api/oidc/token"),
    ("https://OP.example:8443/a/b%2Fc/?x=1&y=2", "https://OP.example:8443/a/b%2Fc/"),
    ("http://127.0.0.1:4593/api/oidc/userinfo#frag", "http://127.0.0.1:4593/api/oidc/userinfo"),
    ("https://op.example/path/", "https://op.example/path/"),
  ])
  func htuIsTheURLAsSentWithoutQueryAndFragment(url: String, htu: String) {
    #expect(DPoPProof.targetURI(of: URL(string: url)!) == htu)
  }

  // RFC 9449 §4.3 compares `htu` after RFC 3986 §6.2.3 normalization, where an empty path is `/`.
  @Test(arguments: [
    ("https://rs.example.com", "https://rs.example.com/"),
    ("https://rs.example.com?x=1", "https://rs.example.com/"),
    ("https://rs.example.com#frag", "https://rs.example.com/"),
    ("http://127.0.0.1:4593", "http://127.0.0.1:4593/"),
    ("https://user@RS.example.com:8443?q", "https://user@RS.example.com:8443/"),
  ])
  func htuOfAnEmptyPathIsASlash(url: String, htu: String) throws {
    #expect(DPoPProof.targetURI(of: URL(string: url)!) == htu)
    let proof = try DPoPProof.make(key: Self.key(), method: "GET", url: URL(string: url)!)
    #expect(try JSONValue(parsing: CompactJWS(parsing: proof).payload)["htu"] == .string(htu))
  }

  @Test func athIsTheBase64URLSHA256OfTheAccessToken() {
    // RFC 9449 §7.1, figure 11.
    #expect(
      DPoPProof.accessTokenHash("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU")
        == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
  }

  @Test func everyProofHasItsOwnJTI() throws {
    let key = try Self.key()
    let url = URL(string: "https://op.example/token")!
    let jtis = try (0..<200).map { _ in
      try JSONValue(parsing: CompactJWS(parsing: DPoPProof.make(key: key, method: "POST", url: url)).payload)["jti"]
    }
    #expect(Set(jtis.compactMap { $0?.stringValue }).count == 200)
  }

  @Test func aSoftwareKeyIsRestoredFromItsStoredFormAndNeverShowsIt() throws {
    let factory = SoftwareDPoPKeyFactory()
    let (key, stored) = try factory.makeKey()
    #expect(!key.isHardwareBacked)
    #expect(try JSONValue(parsing: Array(stored.utf8))["d"] != nil)
    let restored = try factory.restoreKey(from: stored)
    #expect(restored.thumbprint == key.thumbprint)
    let proof = try DPoPProof.make(key: restored, method: "GET", url: URL(string: "https://a.example/")!)
    try CompactJWS(parsing: proof).verify(with: JWSVerificationKey(jwk: key.publicJWK), allowedAlgorithms: [.es256])
    let d = try #require(try JSONValue(parsing: Array(stored.utf8))["d"]?.stringValue)
    var dumped = ""
    dump(key, to: &dumped)
    dump(restored, to: &dumped)
    for text in [key.description, "\(restored)", String(reflecting: key), dumped] {
      #expect(!text.contains(d))
      #expect(text.contains(key.thumbprint))
    }
    expectXidError(.dpopKeyUnavailable) { try factory.restoreKey(from: "{\"kty\":\"EC\"}") }
  }

  @Test func offlineAccessIsAcceptedExactlyWhenDPoPIsOn() throws {
    var configuration = XidConfiguration(
      issuer: URL(string: "https://op.example")!, clientId: "c", redirectUri: URL(string: "com.example:/cb")!,
      scopes: ["openid", "offline_access"])
    expectXidError(.invalidConfiguration) { try configuration.validate() }
    expectXidError(.invalidConfiguration) { try configuration.checkScopes(["openid profile offline_access"]) }
    configuration.usesDPoP = true
    try configuration.validate()
    try configuration.checkScopes(["openid offline_access"])
  }
}

/// The protocol engine with DPoP: binding requests, proofs on the client's form POSTs, nonces, and
/// answers that do not honor the binding.
struct DPoPClientTests {
  static func client(_ provider: FakeProvider) throws -> OpenIDClient {
    try provider.client { $0.usesDPoP = true }
  }

  @Test func theAuthorizationRequestNamesTheKeyAndThePendingSignInRemembersIt() async throws {
    let provider = try FakeProvider()
    let key = try DPoPProofTests.key()
    let request = try await Self.client(provider).makeAuthorizationRequest(dpopKey: key)
    #expect(request.url.query["dpop_jkt"] == key.thumbprint)
    #expect(request.pending.dpopKeyThumbprint == key.thumbprint)
  }

  @Test func aPushedRequestCarriesDpopJktAndAProof() async throws {
    let provider = try FakeProvider()
    let key = try DPoPProofTests.key()
    let request = try await Self.client(provider).makeAuthorizationRequest(
      SignInOptions(usePushedAuthorization: true), dpopKey: key)
    #expect(request.isPushed)
    let pushed = try #require(provider.transport.requests(to: "/par").first)
    #expect(pushed.form["dpop_jkt"] == key.thumbprint)
    let proof = try CompactJWS(parsing: #require(pushed.headers["DPoP"]))
    #expect(try JSONValue(parsing: proof.payload)["htu"] == "https://op.example/par")
  }

  @Test func theCodeExchangeCarriesAProofAndTheTokensMustBeBound() async throws {
    let provider = try FakeProvider()
    provider.on("/token") { provider, _ in try Self.dpopTokenResponse(provider) }
    let client = try Self.client(provider)
    let key = try DPoPProofTests.key()
    let request = try await client.makeAuthorizationRequest(dpopKey: key)
    provider.lastNonce.set(request.url.query["nonce"])
    let redirect = request.pending.redirectUri.appendingQuery([("code", "c"), ("state", request.pending.state)])
    let result = try await client.handleRedirect(url: redirect, pending: [request.pending], dpopKey: key)
    #expect(result.tokens.tokenType == .dpop)
    let sent = try #require(provider.transport.requests(to: "/token").first)
    let proof = try CompactJWS(parsing: #require(sent.headers["DPoP"]))
    let claims = try JSONValue(parsing: proof.payload)
    #expect(claims["htm"] == "POST")
    #expect(claims["htu"] == "https://op.example/token")
    #expect(claims["ath"] == nil)
    #expect(sent.headers["Authorization"] == nil)
  }

  @Test func aCodeOfAnotherKeyIsNotExchanged() async throws {
    let provider = try FakeProvider()
    let client = try Self.client(provider)
    let request = try await client.makeAuthorizationRequest(dpopKey: try DPoPProofTests.key())
    let redirect = request.pending.redirectUri.appendingQuery([("code", "c"), ("state", request.pending.state)])
    await expectXidError(.dpopKeyUnavailable) {
      try await client.handleRedirect(url: redirect, pending: [request.pending], dpopKey: try DPoPProofTests.key())
    }
    #expect(provider.transport.requests(to: "/token").isEmpty)
  }

  @Test func aBearerAnswerToADPoPRequestIsRefusedAndItsTokensRevoked() async throws {
    let provider = try FakeProvider()
    let client = try Self.client(provider)
    let key = try DPoPProofTests.key()
    let request = try await client.makeAuthorizationRequest(dpopKey: key)
    provider.lastNonce.set(request.url.query["nonce"])
    let redirect = request.pending.redirectUri.appendingQuery([("code", "c"), ("state", request.pending.state)])
    let error = await expectXidError(.dpopTokenUnbound) {
      try await client.handleRedirect(url: redirect, pending: [request.pending], dpopKey: key)
    }
    #expect(error?.reason.contains("usesDPoP") == true)
    let revoked = provider.transport.requests(to: "/revoke").map { $0.form["token"] }
    #expect(revoked == ["refresh-token-1", "access-token-1"])
    #expect(provider.transport.requests(to: "/revoke").allSatisfy { $0.headers["DPoP"] != nil })
  }

  @Test func aDPoPAnswerToARequestWithoutAProofIsRefused() async throws {
    let provider = try FakeProvider()
    provider.on("/token") { provider, _ in try Self.dpopTokenResponse(provider) }
    await expectXidError(.invalidTokenResponse) {
      let client = try provider.client()
      let (redirect, pending) = try await provider.authorize(client)
      return try await client.handleRedirect(url: redirect, pending: [pending])
    }
  }

  @Test func theTokenEndpointsNonceIsUsedInOneRetry() async throws {
    let provider = try FakeProvider()
    let calls = LockedValue(0)
    provider.on("/token") { provider, request in
      let nonce = try JSONValue(parsing: CompactJWS(parsing: request.headers["DPoP"] ?? "").payload)["nonce"]
      calls.update { $0 += 1 }
      guard nonce == "server-nonce-1" else {
        return .json(
          ["error": "use_dpop_nonce", "error_description": "nonce required"], status: 400,
          headers: ["DPoP-Nonce": "server-nonce-1"])
      }
      return try Self.dpopTokenResponse(provider)
    }
    let client = try Self.client(provider)
    let key = try DPoPProofTests.key()
    let result = try await client.refresh(refreshToken: "refresh-token-1", originalIDToken: nil, dpopKey: key)
    #expect(result.tokens.tokenType == .dpop)
    #expect(calls.get() == 2)
    #expect(client.dpopNonces.nonce(for: URL(string: "https://op.example/anything")!) == "server-nonce-1")
  }

  @Test func aNonceDemandedTwiceIsNotRetriedForever() async throws {
    let provider = try FakeProvider()
    let calls = LockedValue(0)
    provider.on("/token") { _ in
      calls.update { $0 += 1 }
      return .json(["error": "use_dpop_nonce"], status: 400, headers: ["DPoP-Nonce": "n-\(calls.get())"])
    }
    let error = await expectXidError(.tokenRequestFailed) {
      try await Self.client(provider).refresh(
        refreshToken: "r", originalIDToken: nil, dpopKey: try DPoPProofTests.key())
    }
    #expect(error?.oauthError == "use_dpop_nonce")
    #expect(calls.get() == 2)
  }

  @Test func aProviderThatDoesNotAcceptES256ProofsIsNamed() async throws {
    let provider = try FakeProvider()
    provider.metadataChanges.set(["dpop_signing_alg_values_supported": ["RS256", "PS256"]])
    let error = await expectXidError(.unsupportedByProvider) {
      try await Self.client(provider).makeAuthorizationRequest(dpopKey: try DPoPProofTests.key())
    }
    #expect(error?.reason.contains("dpop_signing_alg_values_supported") == true)
    #expect(error?.reason.contains("ES256") == true)
  }

  @Test func withDPoPOnATokenRequestNeedsTheKey() async throws {
    let provider = try FakeProvider()
    await expectXidError(.invalidConfiguration) {
      try await Self.client(provider).refresh(refreshToken: "r", originalIDToken: nil)
    }
  }

  @Test func userInfoSendsTheTokenAsDPoPWithAProofOfIt() async throws {
    let provider = try FakeProvider()
    provider.on("/userinfo") { _ in .json(["sub": "alice"]) }
    let key = try DPoPProofTests.key()
    _ = try await Self.client(provider).userInfo(accessToken: "at-1", expectedSubject: "alice", dpopKey: key)
    let sent = try #require(provider.transport.requests(to: "/userinfo").first)
    #expect(sent.headers["Authorization"] == "DPoP at-1")
    let claims = try JSONValue(parsing: CompactJWS(parsing: #require(sent.headers["DPoP"])).payload)
    #expect(claims["htm"] == "GET")
    #expect(claims["htu"] == "https://op.example/userinfo")
    #expect(claims["ath"]?.stringValue == DPoPProof.accessTokenHash("at-1"))
  }

  static func dpopTokenResponse(_ provider: FakeProvider) throws -> HTTPResponse {
    let response = try provider.tokenResponse()
    var body = try #require(try JSONValue(parsing: Array(response.body)).objectValue)
    body["token_type"] = "DPoP"
    return .json(.object(body))
  }
}
