import Foundation
import Testing
import Xid
import XidTesting

/// The provider rotates its signing key while the client holds its key set: the client fetches the
/// set again, once, when a token names a `kid` it does not know.
///
/// Xid fetches the set again for an unknown `kid` at most once a minute (`JWKSCache`'s
/// `minimumRefetchInterval`, counted from the last fetch, the first one included), so that tokens
/// naming made-up keys cannot make it hammer the provider. The conformance tests therefore sign in
/// the second time a few minutes after the first, as people do; `refusesARotatedKeyWithinAMinuteOfTheLastFetch`
/// pins what happens sooner.
@Suite(.timeLimit(.minutes(1)))
struct KeyRotationConformanceTests {
  /// Time between the first and the second sign-in.
  static let later: TimeInterval = 300

  @Test("rp-key-rotation-op-sign-key", arguments: Wire.allCases)
  func fetchesTheKeySetOnceMoreWhenTheKeyRotatedBetweenSignIns(over wire: Wire) async throws {
    try await withStage(wire) { stage in
      let first = try await stage.signIn()
      let oldKeyID = try CompactJWS(parsing: first.idToken.compact).header.keyID
      let newKeyID = try await stage.provider.rotateSigningKey()
      #expect(newKeyID != oldKeyID)
      stage.clock.advance(by: Self.later)

      let second = try await stage.signIn()

      #expect(try CompactJWS(parsing: second.idToken.compact).header.keyID == newKeyID)
      #expect(await stage.counters.jwksFetches == 2)
    }
  }

  @Test("rp-key-rotation-op-sign-key-native", arguments: Wire.allCases)
  func fetchesTheKeySetOnceMoreWhenTheKeyRotatedRightBeforeSigning(over wire: Wire) async throws {
    try await withStage(wire) { stage in
      let first = try await stage.signIn()
      let oldKeyID = try CompactJWS(parsing: first.idToken.compact).header.keyID
      stage.clock.advance(by: Self.later)
      try await stage.provider.misbehave(.rotateKeyBeforeSigning, .once)

      let second = try await stage.signIn()

      let newKeyID = try CompactJWS(parsing: second.idToken.compact).header.keyID
      #expect(newKeyID != oldKeyID)
      #expect(newKeyID == (await stage.provider.signingKeyID))
      #expect(await stage.counters.jwksFetches == 2)
      // The new key is cached now: a third sign-in fetches nothing.
      _ = try await stage.signIn()
      #expect(await stage.counters.jwksFetches == 2)
    }
  }

  /// The same rotation when the retired key leaves the key set at once: the old set is of no use,
  /// the new one is.
  @Test("rp-key-rotation-op-sign-key, retired key withdrawn at once")
  func fetchesTheKeySetOnceMoreWhenTheRetiredKeyIsWithdrawn() async throws {
    try await withStage(.inMemory, configure: { $0.keepsPreviousKeysOnRotation = false }) { stage in
      _ = try await stage.signIn()
      try await stage.provider.rotateSigningKey()
      #expect(await stage.provider.publishedKeyIDs.count == 1)
      stage.clock.advance(by: Self.later)
      _ = try await stage.signIn()
      #expect(await stage.counters.jwksFetches == 2)
    }
  }

  /// Pinned: within a minute of the last fetch, a token naming an unknown key is refused with
  /// `unknownSigningKey` and the set is not fetched again; once the minute has passed, the same
  /// situation fetches it and succeeds.
  @Test("Key rotated within a minute of the last key fetch (refetch rate limit)")
  func refusesARotatedKeyWithinAMinuteOfTheLastFetch() async throws {
    try await withStage(.inMemory) { stage in
      _ = try await stage.signIn()
      try await stage.provider.rotateSigningKey()
      stage.clock.advance(by: 30)

      await expectRejection(.unknownSigningKey, on: stage) { try await stage.signIn() }
      #expect(await stage.counters.jwksFetches == 1)

      stage.clock.advance(by: 31)
      _ = try await stage.signIn()
      #expect(await stage.counters.jwksFetches == 2)
    }
  }
}
