import Foundation
import Testing
import Xid
import XidTestSupport

extension GlewlwydInterop {
  /// Rich authorization requests (RFC 9396) and resource indicators (RFC 8707) at glewlwyd, with the
  /// type and resource provision.py configures for the client xid-rar.
  @Suite(.interopProvider, .timeLimit(.minutes(1)))
  struct AuthorizationDetailsInteropTests {
    /// The claims of one of glewlwyd's access tokens (JWTs), unverified: what it says it is for.
    static func claims(ofAccessToken token: String) throws -> [String: JSONValue] {
      let parts = token.split(separator: ".")
      try #require(parts.count == 3, "glewlwyd's access tokens are JWTs")
      return try #require(try JSONValue(parsing: Base64URL.decode(String(parts[1]))).objectValue)
    }

    static func payment(_ environment: InteropEnvironment) throws -> AuthorizationDetail {
      try AuthorizationDetail(
        type: environment.rarType, locations: [environment.resource], actions: ["initiate"],
        fields: ["instructedAmount": ["currency": "EUR", "amount": "12.34"]])
    }

    @Test func grantedAuthorizationDetailsComeBackAndStayWithTheSession() async throws {
      let environment = try InteropEnvironment.require()
      let fixture = try InteropFixture(clientId: environment.clientRAR)
      var options = SignInOptions()
      options.authorizationDetails = [try Self.payment(environment)]
      let session = try await fixture.xid.signIn(options: options)

      let granted = try #require(session.authorizationDetails)
      #expect(granted.map(\.type) == [environment.rarType])
      #expect(granted.first?.actions == ["initiate"])
      // glewlwyd puts the same grant into the access token.
      let claims = try Self.claims(ofAccessToken: try await fixture.xid.getAccessToken())
      #expect(claims["authorization_details"]?.arrayValue?.first?["type"] == .string(environment.rarType))
      // Kept across a refresh and a relaunch.
      _ = try await fixture.xid.getAccessToken(forceRefresh: true)
      #expect(try await fixture.relaunched().getSession()?.authorizationDetails?.map(\.type) == [environment.rarType])
      let secrets = try [fixture.stored("access_token"), fixture.stored("refresh_token")].compactMap { $0 }
      fixture.expectNoSecretsLogged(secrets)
    }

    @Test func aDetailGlewlwydDoesNotAllowFailsTheSignInAndStoresNothing() async throws {
      let environment = try InteropEnvironment.require()
      let fixture = try InteropFixture(clientId: environment.clientRAR)
      var options = SignInOptions()
      options.authorizationDetails = [
        try AuthorizationDetail(type: environment.rarType, locations: [environment.resource], actions: ["refund"])
      ]
      let error = await expectXidError(.authorizationFailed) { try await fixture.xid.signIn(options: options) }
      #expect(error?.oauthError == "invalid_request", "\(error?.reason ?? "")")
      #expect(try fixture.storedRecord() == nil)
    }

    @Test func aResourceGetsATokenMeantForItFromTheSessionsRefreshToken() async throws {
      let environment = try InteropEnvironment.require()
      let resource = ProtectedResource(environment.resource)
      let fixture = try InteropFixture(clientId: environment.clientRAR, resources: [resource])
      try await fixture.xid.signIn()

      let token = try await fixture.xid.getAccessToken(for: environment.resource)
      #expect(try Self.claims(ofAccessToken: token)["aud"] == .string(environment.resource.absoluteString))
      #expect(try await fixture.xid.getAccessToken(for: environment.resource) == token, "kept, not refreshed again")
      #expect(try fixture.storedRecord()?["resources"]?[environment.resource.absoluteString] != nil)
      #expect(try fixture.storedRecord()?["format"] == .int(2))
    }

    @Test func aResourceGlewlwydRefusesIsInvalidTargetAndTheSessionIsKept() async throws {
      let environment = try InteropEnvironment.require()
      let known = ProtectedResource(environment.resource)
      let fixture = try InteropFixture(clientId: environment.clientRAR, resources: [known])
      let session = try await fixture.xid.signIn()
      // A later version of the app names a resource the sign-in did not ask for.
      var configuration = fixture.configuration
      let unknown = URL(string: "https://unknown.xid.test/")!
      configuration.identity.resources.append(ProtectedResource(unknown))
      let later = try Xid(configuration: configuration.storing(in: fixture.storage))

      let error = await expectXidError(.invalidTarget) { try await later.getAccessToken(for: unknown) }
      #expect(error?.oauthError == "invalid_target")
      #expect(try await later.getSession()?.subject == session.subject)
      #expect(try await later.getAccessToken(forceRefresh: true).isEmpty == false, "the refresh token still works")
    }
  }
}
