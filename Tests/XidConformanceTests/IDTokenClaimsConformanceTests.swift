import Foundation
import Testing
import XidCore
import XidTesting

/// ID tokens whose claims break OpenID Connect Core 1.0 §3.1.3.7 (and §12.2 after a refresh) are
/// refused with ``XidError/Code/invalidIDToken``: the code was exchanged, but no tokens come back.
@Suite(.timeLimit(.minutes(1)))
struct IDTokenClaimsConformanceTests {
  @Test("rp-id_token-issuer-mismatch", arguments: Wire.allCases)
  func refusesAnIDTokenFromAnotherIssuer(over wire: Wire) async throws {
    try await withStage(wire) { stage in
      let refusal = try await stage.expectSignInRefused(
        after: .wrongIssuer, with: .invalidIDToken, because: TestProvider.Misbehavior.foreignIssuer)
      #expect(refusal.counters.codeExchanges == 1)
    }
  }

  @Test("rp-id_token-sub")
  func refusesAnIDTokenWithoutSubject() async throws {
    try await withStage(.inMemory) { stage in
      try await stage.expectSignInRefused(after: .missingSubject, with: .invalidIDToken, because: "no \"sub\"")
    }
  }

  @Test("rp-id_token-aud")
  func refusesAnIDTokenForAnotherAudience() async throws {
    try await withStage(.inMemory) { stage in
      try await stage.expectSignInRefused(after: .wrongAudience, with: .invalidIDToken, because: "\"aud\"")
    }
  }

  @Test("rp-id_token-iat")
  func refusesAnIDTokenWithoutIssuedAt() async throws {
    try await withStage(.inMemory) { stage in
      try await stage.expectSignInRefused(after: .missingIssuedAt, with: .invalidIDToken, because: "no \"iat\"")
    }
  }

  @Test("rp-nonce-invalid")
  func refusesAnIDTokenWithAnotherNonce() async throws {
    try await withStage(.inMemory) { stage in
      try await stage.expectSignInRefused(after: .wrongNonce, with: .invalidIDToken, because: "\"nonce\"")
    }
  }

  /// In the OpenID Foundation's suite this case belongs to the implicit and hybrid profiles; in the
  /// code flow `at_hash` is optional, but Xid checks it whenever the provider sends it.
  @Test("rp-id_token-bad-at_hash")
  func refusesAnIDTokenWhoseAccessTokenHashDoesNotMatch() async throws {
    try await withStage(.inMemory) { stage in
      try await stage.expectSignInRefused(after: .wrongAccessTokenHash, with: .invalidIDToken, because: "\"at_hash\"")
    }
  }

  @Test("ID token expired (Core §3.1.3.7 step 9)")
  func refusesAnExpiredIDToken() async throws {
    try await withStage(.inMemory) { stage in
      try await stage.expectSignInRefused(after: .expiredIDToken, with: .invalidIDToken, because: "expired")
    }
  }

  @Test("ID token iat in the future beyond the leeway (Core §3.1.3.7 step 10)")
  func refusesAnIDTokenIssuedInTheFuture() async throws {
    try await withStage(.inMemory) { stage in
      try await stage.expectSignInRefused(
        after: .issuedInFuture, with: .invalidIDToken, because: "issued in the future")
    }
  }

  @Test("Refreshed ID token about another user (Core §12.2)", arguments: Wire.allCases)
  func refusesARefreshWhoseIDTokenHasAnotherSubject(over wire: Wire) async throws {
    try await withStage(wire) { stage in
      let signedIn = try await stage.signIn()
      let refreshToken = try #require(signedIn.tokens.refreshToken)
      try await stage.provider.misbehave(.otherSubjectOnRefresh, .once)
      let error = await expectRejection(.invalidIDToken, on: stage) {
        try await stage.client.refresh(refreshToken: refreshToken, originalIDToken: signedIn.idToken)
      }
      #expect(error?.reason.contains("\"sub\"") == true)
      #expect(await stage.counters.refreshes == 1)
    }
  }
}
