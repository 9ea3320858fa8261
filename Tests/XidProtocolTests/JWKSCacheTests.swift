import Foundation
import Testing
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

struct JWKSCacheTests {
  /// A JWK Set endpoint serving `keys`, which a test may change, and counting its fetches.
  final class KeyServer: Sendable {
    let keys: LockedValue<[JWK]>
    let clock = TestClock()
    let transport: ScriptedTransport
    let cache: JWKSCache

    init(_ keys: [JWK]) {
      let published = LockedValue(keys)
      self.keys = published
      transport = ScriptedTransport { _ in .json(["keys": .array(published.get().map { .object($0.members) })]) }
      cache = JWKSCache(url: URL(string: "https://op.example/jwks")!, transport: transport, clock: clock)
    }

    var fetches: Int { transport.requests.count }
  }

  static func jws(_ signer: JWSSigningKey, includeKeyID: Bool = true, keyID: String? = nil) throws -> CompactJWS {
    var header: [String: JSONValue] = [:]
    if let keyID { header["kid"] = .string(keyID) }
    return try CompactJWS(
      parsing: try signer.sign(Array(#"{"sub":"alice"}"#.utf8), header: header, includeKeyID: includeKeyID))
  }

  @Test func tokenIsVerifiedWithTheKeyItsKidNames() async throws {
    let a = try JWSSigningKey.generate(for: .es256, keyID: "a")
    let b = try JWSSigningKey.generate(for: .es256, keyID: "b")
    let server = KeyServer([a.publicJWK, b.publicJWK])
    let key = try await server.cache.verify(try Self.jws(b), allowedAlgorithms: [.es256])
    #expect(key.keyID == "b")
    #expect(server.fetches == 1)
    #expect(server.transport.requests.first?.headers["Accept"] == "application/json")
  }

  @Test func kidlessTokenIsVerifiedWithTheSingleFittingKey() async throws {
    let signer = try JWSSigningKey.generate(for: .es256, keyID: "only")
    let rsa = try JWSSigningKey.generate(for: .rs256, keyID: "rsa")
    let server = KeyServer([rsa.publicJWK, signer.publicJWK])
    let key = try await server.cache.verify(
      try Self.jws(signer, includeKeyID: false), allowedAlgorithms: [.es256, .rs256])
    #expect(key.keyID == "only")
  }

  @Test func kidlessTokenIsTriedWithEachFittingKey() async throws {
    let a = try JWSSigningKey.generate(for: .es256, keyID: "a")
    let b = try JWSSigningKey.generate(for: .es256, keyID: "b")
    let c = try JWSSigningKey.generate(for: .es256, keyID: "c")
    let server = KeyServer([a.publicJWK, b.publicJWK, c.publicJWK])
    let key = try await server.cache.verify(try Self.jws(c, includeKeyID: false), allowedAlgorithms: [.es256])
    #expect(key.keyID == "c")
    #expect(server.fetches == 1)
  }

  @Test func unknownKidTriggersOneRefetchThenFails() async throws {
    let known = try JWSSigningKey.generate(for: .es256, keyID: "known")
    let unknown = try JWSSigningKey.generate(for: .es256, keyID: "unknown")
    let server = KeyServer([known.publicJWK])
    try await server.cache.verify(try Self.jws(known), allowedAlgorithms: [.es256])
    server.clock.advance(by: .seconds(120))
    let error = await expectXidError(.unknownSigningKey) {
      try await server.cache.verify(try Self.jws(unknown), allowedAlgorithms: [.es256])
    }
    #expect(server.fetches == 2)
    #expect(error?.reason.contains("unknown") == true)
  }

  @Test(arguments: [true, false])
  func aTokenSignedWithAnRSAKeyShorterThan2048BitsIsRefusedForTheKeysLength(namesTheKey: Bool) async throws {
    let signer = try JWSSigningKey.generate(for: .rs256, keyID: "legacy-2015")
    let n = try Base64URL.decode(signer.publicJWK.members["n"]!.stringValue!)
    let shortModulus = Base64URL.encode(Array(n.prefix(128)).map { $0 | 1 })
    let short: JSONValue = [
      "kty": "RSA", "kid": "legacy-2015", "alg": "RS256", "use": "sig", "e": "AQAB", "n": .string(shortModulus),
    ]
    let transport = ScriptedTransport { _ in .json(["keys": [short]]) }
    let cache = JWKSCache(url: URL(string: "https://op.example/jwks")!, transport: transport, clock: TestClock())
    let error = await expectXidError(.invalidKey) {
      try await cache.verify(try Self.jws(signer, includeKeyID: namesTheKey), allowedAlgorithms: [.rs256, .es256])
    }
    let reason = error?.reason ?? ""
    #expect(reason.contains("\"legacy-2015\""), "\(reason)")
    #expect(reason.contains("1024 bits") && reason.contains("2048") && reason.contains("RFC 7518"), "\(reason)")
    #expect(!reason.contains("rotating"), "\(reason)")
    #expect(!reason.contains(shortModulus.prefix(16)))
    #expect(!(error?.description.contains(shortModulus.prefix(16)) ?? true))
  }

  @Test func refetchFindsARotatedKey() async throws {
    let old = try JWSSigningKey.generate(for: .es256, keyID: "2024")
    let new = try JWSSigningKey.generate(for: .es256, keyID: "2025")
    let server = KeyServer([old.publicJWK])
    try await server.cache.verify(try Self.jws(old), allowedAlgorithms: [.es256])
    server.keys.update { $0 = [new.publicJWK] }
    server.clock.advance(by: .seconds(61))
    let key = try await server.cache.verify(try Self.jws(new), allowedAlgorithms: [.es256])
    #expect(key.keyID == "2025")
    #expect(server.fetches == 2)
  }

  @Test func kidlessTokenAfterRotationIsFoundByRefetch() async throws {
    let old = try JWSSigningKey.generate(for: .es256, keyID: "old")
    let new = try JWSSigningKey.generate(for: .es256, keyID: "new")
    let server = KeyServer([old.publicJWK])
    try await server.cache.verify(try Self.jws(old, includeKeyID: false), allowedAlgorithms: [.es256])
    server.keys.update { $0 = [new.publicJWK] }
    server.clock.advance(by: .seconds(61))
    let key = try await server.cache.verify(try Self.jws(new, includeKeyID: false), allowedAlgorithms: [.es256])
    #expect(key.keyID == "new")
  }

  @Test func refetchIsRateLimitedToOncePerMinute() async throws {
    let known = try JWSSigningKey.generate(for: .es256, keyID: "known")
    let server = KeyServer([known.publicJWK])
    try await server.cache.verify(try Self.jws(known), allowedAlgorithms: [.es256])
    #expect(server.fetches == 1)
    // Even right after the first fetch, an unknown kid is worth one refetch (a rotation)…
    let stranger = try JWSSigningKey.generate(for: .es256, keyID: "stranger")
    await expectXidError(.unknownSigningKey) {
      try await server.cache.verify(try Self.jws(stranger), allowedAlgorithms: [.es256])
    }
    #expect(server.fetches == 2)
    // …but not a second one within the minute.
    server.clock.advance(by: .seconds(30))
    await expectXidError(.unknownSigningKey) {
      try await server.cache.verify(try Self.jws(stranger), allowedAlgorithms: [.es256])
    }
    #expect(server.fetches == 2)
    server.clock.advance(by: .seconds(30))
    await expectXidError(.unknownSigningKey) {
      try await server.cache.verify(try Self.jws(stranger), allowedAlgorithms: [.es256])
    }
    #expect(server.fetches == 3)
    // A flood of unknown kids within the minute costs nothing more.
    for index in 0..<10 {
      server.clock.advance(by: .seconds(5))
      let signer = try JWSSigningKey.generate(for: .es256, keyID: "flood-\(index)")
      await expectXidError(.unknownSigningKey) {
        try await server.cache.verify(try Self.jws(signer), allowedAlgorithms: [.es256])
      }
    }
    #expect(server.fetches == 3)
    server.clock.advance(by: .seconds(10))
    await expectXidError(.unknownSigningKey) {
      try await server.cache.verify(try Self.jws(stranger), allowedAlgorithms: [.es256])
    }
    #expect(server.fetches == 4)
  }

  @Test func badSignatureFromANamedKeyFailsWithoutRefetch() async throws {
    let real = try JWSSigningKey.generate(for: .es256, keyID: "k")
    let forger = try JWSSigningKey.generate(for: .es256, keyID: "k")
    let server = KeyServer([real.publicJWK])
    try await server.cache.verify(try Self.jws(real), allowedAlgorithms: [.es256])
    server.clock.advance(by: .seconds(300))
    await expectXidError(.invalidSignature) {
      try await server.cache.verify(try Self.jws(forger), allowedAlgorithms: [.es256])
    }
    #expect(server.fetches == 1)
  }

  @Test func disallowedAlgorithmFailsWithoutAnyFetch() async throws {
    let signer = try JWSSigningKey.generate(for: .es256, keyID: "k")
    let server = KeyServer([signer.publicJWK])
    await expectXidError(.algorithmNotAllowed) {
      try await server.cache.verify(try Self.jws(signer), allowedAlgorithms: [.rs256])
    }
    #expect(server.fetches == 0)
  }

  @Test func keySetIsFetchedAgainAfterItsMaximumAge() async throws {
    let signer = try JWSSigningKey.generate(for: .es256, keyID: "k")
    let server = KeyServer([signer.publicJWK])
    _ = try await server.cache.keySet()
    server.clock.advance(by: .seconds(86_399))
    _ = try await server.cache.keySet()
    #expect(server.fetches == 1)
    server.clock.advance(by: .seconds(2))
    _ = try await server.cache.keySet()
    #expect(server.fetches == 2)
  }

  @Test func concurrentVerificationsShareOneFetch() async throws {
    let signer = try JWSSigningKey.generate(for: .es256, keyID: "k")
    let server = KeyServer([signer.publicJWK])
    let jws = try Self.jws(signer)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<8 { group.addTask { try await server.cache.verify(jws, allowedAlgorithms: [.es256]) } }
      try await group.waitForAll()
    }
    #expect(server.fetches == 1)
  }

  @Test func unavailableKeySetIsTypedWithItsStatus() async throws {
    let transport = ScriptedTransport { _ in HTTPResponse(status: 502) }
    let cache = JWKSCache(url: URL(string: "https://op.example/jwks")!, transport: transport, clock: TestClock())
    let error = await expectXidError(.keySetUnavailable) { try await cache.keySet() }
    #expect(error?.httpStatus == 502)
    #expect(error?.isTransient == true)
  }

  @Test func signInSucceedsAfterTheProviderRotatesItsKey() async throws {
    let provider = try FakeProvider()
    let client = try provider.client()
    let (first, pending1) = try await provider.authorize(client)
    _ = try await client.handleRedirect(url: first, pending: [pending1])
    // The provider now signs with a new key that the cached set lacks.
    let rotated = try JWSSigningKey.generate(for: .es256, keyID: "key-2")
    provider.publishedKeys.update { $0 = [rotated.publicJWK] }
    provider.clock.advance(by: .seconds(120))
    provider.on("/token") { provider, _ in
      let claims = provider.idTokenClaims(nonce: provider.lastNonce.get())
      return .json([
        "access_token": "at", "token_type": "Bearer", "id_token": .string(try rotated.sign(claims: claims)),
      ])
    }
    let (second, pending2) = try await provider.authorize(client)
    let result = try await client.handleRedirect(url: second, pending: [pending2])
    #expect(result.idToken.subject == "alice")
    #expect(provider.transport.requests(to: "/jwks").count == 2)
  }
}
