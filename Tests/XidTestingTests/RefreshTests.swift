import Foundation
import Testing
import XidCore
import XidTesting

struct RefreshTests {
  @Test func everyRefreshRotatesTheRefreshToken() async throws {
    let harness = try Harness()
    let first = try await harness.signIn()
    let original = try await harness.verify(try #require(first.idToken))
    harness.clock.advance(by: .seconds(10))
    let second = try Harness.Tokens(await harness.refresh(try #require(first.refreshToken)))
    #expect(second.refreshToken != nil)
    #expect(second.refreshToken != first.refreshToken)
    #expect(second.accessToken != first.accessToken)
    #expect(try await harness.get(.resource, bearer: second.accessToken).status == 200)

    let refreshed = try await harness.verify(try #require(second.idToken))
    #expect(refreshed.subject == original.subject)
    #expect(refreshed.authTime == original.authTime)
    #expect(refreshed.issuedAt == original.issuedAt! + 10)
    #expect(refreshed.nonce == nil)
    #expect(refreshed.accessTokenHash == Harness.sha256Hash(second.accessToken))

    let third = try Harness.Tokens(await harness.refresh(try #require(second.refreshToken)))
    #expect(third.refreshToken != second.refreshToken)
    #expect(await harness.provider.counters.refreshes == 2)
  }

  @Test func replayingARetiredRefreshTokenRevokesTheWholeGrant() async throws {
    let harness = try Harness()
    let first = try await harness.signIn()
    let old = try #require(first.refreshToken)
    let second = try Harness.Tokens(await harness.refresh(old))

    let replay = try await harness.refresh(old)
    #expect(replay.status == 400)
    #expect(Harness.oauthError(replay) == "invalid_grant")
    // The chain is gone: the newest refresh token and every access token of the grant.
    #expect(Harness.oauthError(try await harness.refresh(try #require(second.refreshToken))) == "invalid_grant")
    #expect(try await harness.get(.resource, bearer: second.accessToken).status == 401)
    #expect(try await harness.get(.resource, bearer: first.accessToken).status == 401)
  }

  @Test func reuseDetectionLeavesOtherGrantsAlone() async throws {
    let harness = try Harness()
    let victim = try await harness.signIn()
    let bystander = try await harness.signIn()
    let old = try #require(victim.refreshToken)
    _ = try Harness.Tokens(await harness.refresh(old))
    _ = try await harness.refresh(old)
    _ = try Harness.Tokens(await harness.refresh(try #require(bystander.refreshToken)))
  }

  @Test func withoutRotationTheRefreshTokenStaysValid() async throws {
    var configuration = TestProvider.Configuration()
    configuration.rotatesRefreshTokens = false
    let harness = try Harness(configuration: configuration)
    let refreshToken = try #require(try await harness.signIn().refreshToken)
    let first = try Harness.Tokens(await harness.refresh(refreshToken))
    #expect(first.refreshToken == nil)
    _ = try Harness.Tokens(await harness.refresh(refreshToken))
  }

  @Test func aRefreshMayNarrowTheScopeButNotWidenIt() async throws {
    let harness = try Harness()
    let tokens = try await harness.signIn(scope: "openid profile")
    let narrowed = try Harness.Tokens(await harness.refresh(try #require(tokens.refreshToken), scope: "openid"))
    #expect(narrowed.json["scope"] == "openid")
    let info = try Harness.json(try await harness.get(.userInfo, bearer: narrowed.accessToken))
    #expect(info["name"] == nil)
    let widened = try await harness.refresh(try #require(narrowed.refreshToken), scope: "openid email")
    #expect(Harness.oauthError(widened) == "invalid_scope")
  }

  @Test func refreshTokensExpireWhenConfigured() async throws {
    var configuration = TestProvider.Configuration()
    configuration.refreshTokenLifetime = .seconds(3600)
    let harness = try Harness(configuration: configuration)
    let refreshToken = try #require(try await harness.signIn().refreshToken)
    harness.clock.advance(by: .seconds(3600))
    #expect(Harness.oauthError(try await harness.refresh(refreshToken)) == "invalid_grant")
  }

  @Test func anotherClientCannotUseTheRefreshToken() async throws {
    let other = TestClient(id: "other", redirectURIs: [URL(string: "other:/cb")!])
    var configuration = TestProvider.Configuration()
    configuration.clients.append(other)
    let harness = try Harness(configuration: configuration)
    let refreshToken = try #require(try await harness.signIn().refreshToken)
    let stolen = try await harness.post(
      .token, [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", "other")])
    #expect(Harness.oauthError(stolen) == "invalid_grant")
    _ = try Harness.Tokens(await harness.refresh(refreshToken))
  }
}
