import Foundation
import Testing
import Xid
import XidTestSupport

extension GlewlwydInterop {
  /// Sign-in with authorization code + PKCE at glewlwyd, the user's part done through its login API
  /// where a browser would be.
  @Suite(.interopProvider, .timeLimit(.minutes(1)))
  struct CodeFlowInteropTests {
    /// The two clients provision.py registers, and how glewlwyd signs their ID tokens.
    enum Client: CaseIterable, CustomTestStringConvertible, Sendable {
      case es256, rs256

      var algorithm: JWSAlgorithm { self == .es256 ? .es256 : .rs256 }
      var keyID: String { self == .es256 ? "es256-1" : "rs256-1" }
      var testDescription: String { algorithm.rawValue }

      func id(in environment: InteropEnvironment) -> String {
        self == .es256 ? environment.clientES256 : environment.clientRS256
      }
    }

    @Test(arguments: Client.allCases)
    func signInGivesAValidatedSessionWithTheClientsSigningAlgorithm(client: Client) async throws {
      let environment = try InteropEnvironment.require()
      let fixture = try InteropFixture(clientId: client.id(in: environment))
      let session = try await fixture.xid.signIn()

      #expect(!session.subject.isEmpty)
      #expect(session.issuer == environment.issuer.absoluteString)
      #expect(session.claims.issuer == environment.issuer.absoluteString)
      #expect(session.claims.audience.contains(fixture.clientId))
      #expect(session.scopes.contains("openid"))

      // The ID token Xid stored, checked once more here against the provider's JWKS, with only the
      // algorithm this client is registered for allowed.
      let idToken = try #require(try fixture.stored("id_token"))
      let keys = try await fixture.glewlwyd.keys(environment.issuer)
      let verified = try SignedJWT(verifying: idToken, using: keys, allowedAlgorithms: [client.algorithm])
      #expect(verified.jws.header.algorithm == client.algorithm.rawValue)
      #expect(verified.jws.header.keyID == client.keyID)
      #expect(verified.claims.subject == session.subject)
      #expect(verified.claims == session.claims)

      // UserInfo is about the same user, and the access token works for authorized requests.
      let info = try await fixture.xid.userInfo()
      #expect(info.subject == session.subject)
      #expect(info.email == "alice@example.com")
      let userInfoEndpoint = try await fixture.glewlwyd.endpoint("userinfo_endpoint", of: environment.issuer)
      let response = try await fixture.xid.send(HTTPRequest(url: userInfoEndpoint))
      #expect(response.status == 200)
      fixture.expectNoSecretsLogged(
        try [fixture.stored("access_token"), fixture.stored("refresh_token"), idToken].compactMap { $0 })
    }

    @Test func theCallbacksIssuerIsCheckedAndATamperedOneIsRefused() async throws {
      let fixture = try InteropFixture()
      let url = try await fixture.xid.authorizationURL()
      let callback = try await fixture.glewlwyd.approve(url, cookie: try await fixture.glewlwyd.logIn())
      // glewlwyd sends the RFC 9207 iss parameter (without advertising it in its metadata).
      #expect(callback.queryValue("iss") == fixture.environment.issuer.absoluteString)

      let mixedUp = callback.settingQueryValue("iss", to: "http://127.0.0.1:1/api/oidc")
      let error = await expectXidError(.issuerMismatch) { try await fixture.xid.handleRedirect(url: mixedUp) }
      #expect(error?.reason.contains("RFC 9207") == true)
      #expect(try await fixture.xid.getSession() == nil)
      #expect(try fixture.storedRecord() == nil)
    }

    @Test func aReplayedCodeIsRefusedAs403InvalidCodeAndRevokesTheFirstSession() async throws {
      let fixture = try InteropFixture()
      let url = try await fixture.xid.authorizationURL()
      let pendingKey = try #require(try fixture.storage.keys(withPrefix: "xid.pending.").first)
      let pending = try #require(try fixture.storage.load(key: pendingKey))
      let callback = try await fixture.glewlwyd.approve(url, cookie: try await fixture.glewlwyd.logIn())
      try await fixture.xid.handleRedirect(url: callback)

      // The pending sign-in comes back (a restored backup), so Xid redeems the same code again.
      try fixture.storage.save(key: pendingKey, value: pending)
      let error = await expectXidError(.tokenRequestFailed) { try await fixture.xid.handleRedirect(url: callback) }
      #expect(error?.httpStatus == 403)
      #expect(error?.oauthError == "invalid_code")

      // glewlwyd revoked the tokens of the replayed code: refreshing them ends the session cleanly.
      await expectXidError(.sessionExpired) { try await fixture.xid.getAccessToken(forceRefresh: true) }
      #expect(try fixture.storedRecord() == nil)
    }
  }
}
