import Foundation
import Testing
import Xid
import XidTestSupport

extension GlewlwydInterop {
  /// The device authorization grant (RFC 8628) at glewlwyd: the user approves through glewlwyd's user
  /// API while Xid polls.
  @Suite(.interopProvider, .timeLimit(.minutes(1)))
  struct DeviceInteropTests {
    @Test func theDeviceGrantSignsInOnceTheUserApprovesWhileXidPolls() async throws {
      let fixture = try InteropFixture()
      let (codes, shown) = AsyncStream.makeStream(of: DeviceAuthorization.self)
      async let signedIn = fixture.xid.signInWithDeviceCode { authorization in
        shown.yield(authorization)
        shown.finish()
      }
      var iterator = codes.makeAsyncIterator()
      let authorization = try #require(await iterator.next())
      #expect(authorization.interval == .seconds(1))
      #expect(!authorization.userCode.isEmpty)
      #expect(authorization.verificationURI.absoluteString.hasPrefix(fixture.environment.baseURL.absoluteString))

      // Xid polls every second and hears authorization_pending until the user approves.
      try await Task.sleep(for: .milliseconds(2_500))
      try await fixture.glewlwyd.approveDevice(
        userCode: authorization.userCode, issuer: fixture.issuer, cookie: try await fixture.glewlwyd.logIn())
      let session = try await signedIn

      #expect(!session.subject.isEmpty)
      #expect(session.claims.audience.contains(fixture.clientId))
      #expect(try await fixture.xid.userInfo().subject == session.subject)
      #expect(try await fixture.xid.getSession() == session)
    }
  }

  /// Sign-out at glewlwyd: it refuses RFC 7009 revocation from public clients (401), and its end-session
  /// endpoint wants the user to press "Logout".
  @Suite(.interopProvider, .timeLimit(.minutes(1)))
  struct SignOutInteropTests {
    @Test func signOutSucceedsAndForgetsTheUserAlthoughGlewlwydRefusesToRevoke() async throws {
      let fixture = try InteropFixture()
      try await fixture.xid.signIn()
      let refreshToken = try #require(try fixture.stored("refresh_token"))

      try await fixture.xid.signOut()
      #expect(try await fixture.xid.getSession() == nil)
      #expect(try fixture.storedRecord() == nil)
      await expectXidError(.signInRequired) { try await fixture.xid.getAccessToken() }
      let logged = fixture.logger.messages.contains {
        $0.contains("did not revoke the refresh token") && $0.contains("revocationFailed")
      }
      #expect(logged, "the refused revocation is logged")

      // At glewlwyd the refresh token lives on: /revoke wants client authentication (401), and the
      // token still refreshes. Only the user's logout at the provider (end_session) or expiry ends it.
      let revocation = try await fixture.glewlwyd.transport.send(
        .form(
          try await fixture.glewlwyd.endpoint("revocation_endpoint", of: fixture.issuer),
          [("token", refreshToken), ("token_type_hint", "refresh_token"), ("client_id", fixture.clientId)]))
      #expect(revocation.status == 401)
      let refreshed = try await fixture.glewlwyd.refresh(
        refreshToken, issuer: fixture.issuer, clientId: fixture.clientId)
      #expect(refreshed.status == 200)
      // Tidy up with glewlwyd's own grant for public clients.
      if let rotated = try JSONValue(parsing: Array(refreshed.body))["refresh_token"]?.stringValue {
        let deleted = try await fixture.glewlwyd.deleteToken(
          rotated, issuer: fixture.issuer, clientId: fixture.clientId)
        #expect(deleted.status == 200)
      }
      fixture.expectNoSecretsLogged([refreshToken])
    }

    @Test func signOutWithEndSessionOpensGlewlwydsLogoutPage() async throws {
      let fixture = try InteropFixture()
      let session = try await fixture.xid.signIn()
      try await fixture.xid.signOut(callEndSession: true)
      #expect(try fixture.storedRecord() == nil)

      let page = try #require(fixture.user.opened.first)
      #expect(fixture.user.opened.count == 1)
      let endSession = try await fixture.glewlwyd.endpoint("end_session_endpoint", of: fixture.issuer)
      // (Only the URL's parts are compared: its query carries the ID token.)
      #expect(
        page.url.settingQueryValue("id_token_hint", to: nil).absoluteString.hasPrefix(endSession.absoluteString + "?"))
      #expect(
        page.url.queryValue("post_logout_redirect_uri") == fixture.environment.postLogoutRedirectUri.absoluteString)
      let hint = try #require(page.url.queryValue("id_token_hint"))
      let hinted = try SignedJWT(
        verifying: hint, using: try await fixture.glewlwyd.keys(fixture.issuer), allowedAlgorithms: [.es256])
      #expect(hinted.claims.subject == session.subject)

      // glewlwyd accepted the hint and sends the browser to its logout page, where the user confirms.
      #expect(page.status == 302)
      let location = try #require(page.location)
      #expect(location.contains("/login.html?"))
      #expect(location.contains("prompt=end_session"))
      #expect(location.contains("client_id=\(fixture.clientId)"))
    }
  }
}
