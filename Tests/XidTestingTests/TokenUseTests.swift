import Foundation
import Testing
import XidCore
import XidTesting

struct TokenUseTests {
  @Test func theResourceAcceptsAValidAccessToken() async throws {
    let harness = try Harness()
    let tokens = try await harness.signIn()
    let response = try await harness.get(.resource, bearer: tokens.accessToken)
    #expect(response.status == 200)
    let body = try Harness.json(response)
    #expect(body["sub"] == "alice")
    #expect(body["client_id"] == "xid-example")
  }

  @Test func theResourceRejectsMissingUnknownAndExpiredTokens() async throws {
    let harness = try Harness()
    let tokens = try await harness.signIn()

    let missing = try await harness.get(.resource)
    #expect(missing.status == 401)
    #expect(missing.headers["WWW-Authenticate"] == "Bearer")

    let unknown = try await harness.get(.resource, bearer: "not-a-token")
    #expect(unknown.status == 401)
    #expect(unknown.headers["WWW-Authenticate"]?.hasPrefix("Bearer error=\"invalid_token\"") == true)

    harness.clock.advance(by: .seconds(299))
    #expect(try await harness.get(.resource, bearer: tokens.accessToken).status == 200)
    harness.clock.advance(by: .seconds(1))
    let expired = try await harness.get(.resource, bearer: tokens.accessToken)
    #expect(expired.status == 401)
    #expect(expired.headers["WWW-Authenticate"]?.hasPrefix("Bearer error=\"invalid_token\"") == true)
    #expect(await harness.provider.counters.resourceRequests == 4)
  }

  @Test func userInfoReleasesClaimsByScope() async throws {
    let harness = try Harness()
    let profile = try await harness.signIn(scope: "openid profile")
    let profileInfo = try Harness.json(try await harness.get(.userInfo, bearer: profile.accessToken))
    #expect(profileInfo["sub"] == "alice")
    #expect(profileInfo["name"] == "Alice Example")
    #expect(profileInfo["email"] == nil)

    let email = try await harness.signIn(scope: "openid email")
    let emailInfo = try Harness.json(try await harness.get(.userInfo, bearer: email.accessToken))
    #expect(emailInfo == ["sub": "alice", "email": "alice@example.com", "email_verified": true])
  }

  @Test func userInfoRequiresABearerTokenWithTheOpenIDScope() async throws {
    let harness = try Harness()
    #expect(try await harness.get(.userInfo).status == 401)
    #expect(try await harness.get(.userInfo, bearer: "forged").status == 401)
    let oauthOnly = try await harness.signIn(scope: "profile")
    #expect(oauthOnly.idToken == nil)
    let response = try await harness.get(.userInfo, bearer: oauthOnly.accessToken)
    #expect(response.status == 403)
    #expect(Harness.oauthError(response) == "insufficient_scope")
  }

  @Test func revokingAnAccessTokenLeavesTheRefreshToken() async throws {
    let harness = try Harness()
    let tokens = try await harness.signIn()
    let revoked = try await harness.post(
      .revocation, [("token", tokens.accessToken), ("token_type_hint", "access_token"), ("client_id", "xid-example")])
    #expect(revoked.status == 200)
    #expect(try await harness.get(.resource, bearer: tokens.accessToken).status == 401)
    #expect(try await harness.get(.userInfo, bearer: tokens.accessToken).status == 401)
    _ = try Harness.Tokens(await harness.refresh(try #require(tokens.refreshToken)))
    #expect(await harness.provider.counters.revocations == 1)
  }

  @Test func revokingARefreshTokenRevokesItsGrant() async throws {
    let harness = try Harness()
    let tokens = try await harness.signIn()
    let refreshToken = try #require(tokens.refreshToken)
    #expect(try await harness.post(.revocation, [("token", refreshToken), ("client_id", "xid-example")]).status == 200)
    #expect(Harness.oauthError(try await harness.refresh(refreshToken)) == "invalid_grant")
    #expect(try await harness.get(.resource, bearer: tokens.accessToken).status == 401)
  }

  @Test func revokingAnUnknownTokenSucceedsButOnlyTheOwnerMayRevoke() async throws {
    let other = TestClient(id: "other", redirectURIs: [URL(string: "other:/cb")!])
    var configuration = TestProvider.Configuration()
    configuration.clients.append(other)
    let harness = try Harness(configuration: configuration)
    #expect(try await harness.post(.revocation, [("token", "unknown"), ("client_id", "xid-example")]).status == 200)
    let tokens = try await harness.signIn()
    let foreign = try await harness.post(.revocation, [("token", tokens.accessToken), ("client_id", "other")])
    #expect(foreign.status == 400)
    #expect(try await harness.get(.resource, bearer: tokens.accessToken).status == 200)
  }
}
