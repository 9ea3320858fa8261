import Foundation
import Testing
import Xid
import XidTestSupport

extension GlewlwydInterop {
  /// Refresh against glewlwyd: refresh tokens rotate on every use, a reused one revokes its chain, and a
  /// refused refresh token comes back as an empty 400 (the fixture turns on
  /// `ProviderQuirks.emptyBadRequestIsInvalidGrant`).
  @Suite(.interopProvider, .timeLimit(.minutes(1)))
  struct RefreshInteropTests {
    @Test func aForcedRefreshRotatesAndTheOldRefreshTokenIsThenRefused() async throws {
      let fixture = try InteropFixture()
      try await fixture.xid.signIn()
      let firstAccess = try #require(try fixture.stored("access_token"))
      let firstRefresh = try #require(try fixture.stored("refresh_token"))

      let access = try await fixture.xid.getAccessToken(forceRefresh: true)
      let newAccessToken = access != firstAccess
      #expect(newAccessToken)
      let rotated = try #require(try fixture.stored("refresh_token"))
      let refreshTokenRotated = rotated != firstRefresh
      #expect(refreshTokenRotated)

      // The old refresh token, sent by hand: refused with glewlwyd's empty 400.
      let replay = try await fixture.glewlwyd.refresh(
        firstRefresh, issuer: fixture.issuer, clientId: fixture.clientId)
      #expect(replay.status == 400)
      #expect(replay.body.isEmpty)

      // That reuse broke the chain: glewlwyd disabled the newest token too, and Xid ends the session.
      let error = await expectXidError(.sessionExpired) { try await fixture.xid.getAccessToken(forceRefresh: true) }
      #expect(error?.httpStatus == 400)
      #expect(error?.reason.contains("sign the user in again") == true)
      #expect(try await fixture.xid.getSession() == nil)
      #expect(try fixture.storedRecord() == nil)
      fixture.expectNoSecretsLogged([firstAccess, firstRefresh, access, rotated])
    }

    @Test func aStaleRecordReplayingARotatedRefreshTokenEndsTheSessionWithSessionExpired() async throws {
      let fixture = try InteropFixture()
      try await fixture.xid.signIn()
      let key = try #require(try fixture.recordKey())
      let staleRecord = try #require(try fixture.storage.load(key: key))
      _ = try await fixture.xid.getAccessToken(forceRefresh: true)
      let newest = try #require(try fixture.stored("refresh_token"))

      // A stale copy of the record (restored from a backup) makes Xid replay the rotated-out token.
      try fixture.storage.save(key: key, value: staleRecord)
      let relaunched = try fixture.relaunched()
      await expectXidError(.sessionExpired) { try await relaunched.getAccessToken(forceRefresh: true) }
      #expect(try await relaunched.getSession() == nil)
      #expect(try fixture.storedRecord() == nil)

      // glewlwyd's reuse detection revoked the chain: the newest refresh token is dead as well.
      let response = try await fixture.glewlwyd.refresh(newest, issuer: fixture.issuer, clientId: fixture.clientId)
      #expect(response.status == 400)
    }

    @Test func anUnknownRefreshTokenGetsAnEmpty400AndEndsTheSessionWithSessionExpired() async throws {
      let fixture = try InteropFixture()
      try await fixture.xid.signIn()
      let unknown = Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255) })
      try fixture.rewriteStored("refresh_token", to: .string(unknown))

      let error = await expectXidError(.sessionExpired) { try await fixture.xid.getAccessToken(forceRefresh: true) }
      #expect(error?.httpStatus == 400)
      #expect(error?.oauthError == nil)
      #expect(error?.reason.contains("emptyBadRequestIsInvalidGrant") == true)
      #expect(try fixture.storedRecord() == nil)
    }

    @Test func withoutTheQuirkOptionGlewlwydsEmpty400KeepsTheSessionAndNamesTheOption() async throws {
      let fixture = try InteropFixture()
      try await fixture.xid.signIn()
      var configuration = fixture.configuration
      configuration.policy.providerQuirks = []
      let strict = try Xid(configuration: configuration.storing(in: fixture.storage))
      let unknown = Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255) })
      try fixture.rewriteStored("refresh_token", to: .string(unknown))

      let error = await expectXidError(.tokenRequestFailed) { try await strict.getAccessToken(forceRefresh: true) }
      #expect(error?.httpStatus == 400)
      #expect(error?.reason.contains("emptyBadRequestIsInvalidGrant") == true)
      #expect(try fixture.storedRecord() != nil)
    }
  }
}
