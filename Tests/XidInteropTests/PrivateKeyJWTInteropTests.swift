import Foundation
import Testing
import Xid
import XidTestSupport

extension GlewlwydInterop {
  /// `private_key_jwt` (RFC 7523, OpenID Connect Core §9) at glewlwyd, for the confidential client
  /// xid-pkjwt that provision.py registers with the public half of its key. glewlwyd accepts only the
  /// URL of the endpoint as an assertion's `aud`, and each `jti` once.
  @Suite(.interopProvider, .timeLimit(.minutes(1)))
  struct PrivateKeyJWTInteropTests {
    static func fixture(audience: ClientAssertionAudience) throws -> InteropFixture {
      let environment = try InteropEnvironment.require()
      let key = try JWSSigningKey(privateJWK: environment.clientJWK)
      return try InteropFixture(
        clientId: environment.clientPrivateKeyJWT,
        clientAuthentication: .privateKeyJWT(key: key, audience: audience))
    }

    @Test func aConfidentialClientSignsInThroughPARRefreshesAndRevokesWithItsKey() async throws {
      let fixture = try Self.fixture(audience: .endpoint)
      let session = try await fixture.xid.signIn(options: SignInOptions(usePushedAuthorization: true))
      #expect(!session.subject.isEmpty)
      let first = try await fixture.xid.getAccessToken()
      // A new assertion (and jti) for the refresh: glewlwyd refuses one it has seen.
      #expect(try await fixture.xid.getAccessToken(forceRefresh: true) != first)
      let result = try await fixture.xid.signOut()
      #expect(result.revocation == .revoked, "glewlwyd revokes for an authenticated client")
      fixture.expectNoSecretsLogged([first])
      #expect(!fixture.logger.messages.contains { $0.contains("eyJ") }, "no assertion in a log line")
    }

    @Test func theIssuerAsAudienceIsRefusedByGlewlwydAndNothingIsStored() async throws {
      let fixture = try Self.fixture(audience: .issuer)
      let error = await expectXidError(.tokenRequestFailed) { try await fixture.xid.signIn() }
      #expect(error?.httpStatus == 403)
      #expect(error?.reason.contains("eyJ") == false, "the assertion is not in the reason")
      #expect(try fixture.storedRecord() == nil)
    }
  }
}
