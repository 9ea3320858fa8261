import Foundation
import Testing
import XidCore
import XidTesting

struct ProgrammableUserTests {
  @Test func aDenyingUserSendsTheClientAccessDenied() async throws {
    let harness = try Harness(user: TestUser(subject: "bob", behavior: .deny))
    let callback = try await harness.authorize(harness.authorizationParameters(pkce: try Harness.PKCE()))
    #expect(callback["error"] == "access_denied")
    #expect(callback["code"] == nil)
    #expect(callback["state"] == "state-1")
    #expect(callback["iss"] == "https://op.xid.test")
  }

  @Test func promptNoneWithoutASessionIsLoginRequired() async throws {
    let harness = try Harness()
    let silent = harness.authorizationParameters(pkce: try Harness.PKCE(), overrides: ["prompt": "none"])
    #expect(try await harness.authorize(silent)["error"] == "login_required")
    _ = try await harness.signIn()
    #expect(try await harness.authorize(silent)["code"] != nil)
    await harness.provider.endUserSession()
    #expect(try await harness.authorize(silent)["error"] == "login_required")
  }

  @Test func promptNoneReportsRequiredLoginOrConsent() async throws {
    let harness = try Harness()
    _ = try await harness.signIn()
    let silent = harness.authorizationParameters(pkce: try Harness.PKCE(), overrides: ["prompt": "none"])
    await harness.provider.setUserBehavior(.requireConsent)
    #expect(try await harness.authorize(silent)["error"] == "consent_required")
    await harness.provider.setUserBehavior(.requireLogin)
    #expect(try await harness.authorize(silent)["error"] == "login_required")
  }

  @Test func withoutPromptNoneTheUserSignsInAgainAndApproves() async throws {
    let harness = try Harness()
    let first = try await harness.verify(try #require(try await harness.signIn().idToken))
    harness.clock.advance(by: .seconds(100))
    await harness.provider.setUserBehavior(.requireLogin)
    let second = try await harness.verify(try #require(try await harness.signIn().idToken))
    #expect(second.authTime == first.authTime! + 100)
    #expect(second.sessionID != first.sessionID)
    await harness.provider.setUserBehavior(.approve)
    harness.clock.advance(by: .seconds(100))
    let third = try await harness.verify(try #require(try await harness.signIn().idToken))
    #expect(third.authTime == second.authTime)
    #expect(third.sessionID == second.sessionID)
  }

  @Test func maxAgeForcesAFreshSignIn() async throws {
    let harness = try Harness()
    _ = try await harness.signIn()
    harness.clock.advance(by: .seconds(120))
    let silent = harness.authorizationParameters(
      pkce: try Harness.PKCE(), overrides: ["prompt": "none", "max_age": "60"])
    #expect(try await harness.authorize(silent)["error"] == "login_required")
  }

  @Test func theChosenSubjectAndClaimsAreIssued() async throws {
    let user = TestUser(subject: "user-7", claims: ["name": "Seven", "email": "seven@example.com"])
    let harness = try Harness(user: user)
    let tokens = try await harness.signIn()
    #expect(try await harness.verify(try #require(tokens.idToken)).subject == "user-7")
    let info = try Harness.json(try await harness.get(.userInfo, bearer: tokens.accessToken))
    #expect(info == ["sub": "user-7", "name": "Seven", "email": "seven@example.com"])
  }

  @Test func pushedAuthorizationRequestsAreUsedOnce() async throws {
    let harness = try Harness()
    let pkce = try Harness.PKCE()
    let pushed = try await harness.post(.pushedAuthorization, harness.authorizationParameters(pkce: pkce))
    #expect(pushed.status == 201)
    let body = try Harness.json(pushed)
    let requestURI = try #require(body["request_uri"]?.stringValue)
    #expect(requestURI.hasPrefix("urn:ietf:params:oauth:request_uri:"))
    #expect(body["expires_in"] == 60)

    let reference = [("client_id", "xid-example"), ("request_uri", requestURI)]
    let callback = try await harness.authorize(reference)
    let code = try #require(callback["code"])
    #expect(callback["state"] == "state-1")
    _ = try Harness.Tokens(await harness.exchange(code: code, verifier: pkce.verifier))
    #expect(try await harness.provider.browser.load(harness.authorizationURL(reference)).status == 400)
    #expect(await harness.provider.counters.pushedAuthorizationRequests == 1)
  }

  @Test func pushedRequestsAreValidatedAndExpire() async throws {
    let harness = try Harness()
    let pkce = try Harness.PKCE()
    let plain = try await harness.post(
      .pushedAuthorization, harness.authorizationParameters(pkce: pkce, overrides: ["code_challenge_method": "plain"]))
    #expect(plain.status == 400)
    #expect(Harness.oauthError(plain) == "invalid_request")

    let pushed = try await harness.post(.pushedAuthorization, harness.authorizationParameters(pkce: pkce))
    let requestURI = try #require(try Harness.json(pushed)["request_uri"]?.stringValue)
    harness.clock.advance(by: .seconds(61))
    let url = harness.authorizationURL([("client_id", "xid-example"), ("request_uri", requestURI)])
    #expect(try await harness.provider.browser.load(url).status == 400)
  }

  @Test func requiredPushedAuthorizationRefusesPlainRequests() async throws {
    var configuration = TestProvider.Configuration()
    configuration.pushedAuthorization = .required
    let harness = try Harness(configuration: configuration)
    let pkce = try Harness.PKCE()
    let callback = try await harness.authorize(harness.authorizationParameters(pkce: pkce))
    #expect(callback["error"] == "invalid_request")
    let pushed = try await harness.post(.pushedAuthorization, harness.authorizationParameters(pkce: pkce))
    let requestURI = try #require(try Harness.json(pushed)["request_uri"]?.stringValue)
    #expect(try await harness.authorize([("client_id", "xid-example"), ("request_uri", requestURI)])["code"] != nil)
  }
}
