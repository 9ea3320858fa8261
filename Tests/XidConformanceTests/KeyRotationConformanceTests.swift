import Foundation
import Testing
import XidCore
import XidTesting

/// The provider rotates its signing key while the client holds its key set: the client fetches the
/// set again, once, when a token names a `kid` it does not know.
///
/// Xid fetches the set again for an unknown `kid` at most once a minute (`JWKSCache`'s
/// `minimumRefetchInterval`, counted between such refetches; the first is always allowed), so that
/// tokens naming made-up keys cannot make it hammer the provider while a real rotation, even
/// seconds after the last sign-in, never fails one.
@Suite(.timeLimit(.minutes(1)))
struct KeyRotationConformanceTests {
  /// Time between the first and the second sign-in: none, the hardest case.
  static let later: Duration = .zero

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

  /// Pinned: a rotation seconds after the key set was loaded is followed at once; a second unknown
  /// key within a minute of that refetch is refused with `unknownSigningKey` without fetching again,
  /// and once the minute has passed the set is fetched and the sign-in succeeds.
  @Test("Keys rotated twice within a minute (refetch rate limit)")
  func refetchesForARotationAtOnceButAtMostOncePerMinute() async throws {
    try await withStage(.inMemory) { stage in
      _ = try await stage.signIn()
      try await stage.provider.rotateSigningKey()
      stage.clock.advance(by: .seconds(5))
      _ = try await stage.signIn()
      #expect(await stage.counters.jwksFetches == 2)

      try await stage.provider.rotateSigningKey()
      stage.clock.advance(by: .seconds(30))
      await expectRejection(.unknownSigningKey, on: stage) { try await stage.signIn() }
      #expect(await stage.counters.jwksFetches == 2)

      stage.clock.advance(by: .seconds(31))
      _ = try await stage.signIn()
      #expect(await stage.counters.jwksFetches == 3)
    }
  }
}
