import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

/// A step-up (RFC 9470) signs the session's user in again with what the resource server asked for.
/// Its tokens replace the session's only when the new ID token is about the same user, has an `acr`
/// that was asked for and a recent enough `auth_time`; every refusal leaves the session as it was
/// and revokes the step-up's tokens.
@Suite(.noSecretLeaks)
struct StepUpSignInTests {
  static func harness(dpop: Bool = false) throws -> SessionHarness {
    var configuration = TestProvider.Configuration()
    configuration.acrValuesSupported = ["urn:xid:test:acr:password", "urn:xid:test:acr:mfa"]
    let provider = try TestProvider(configuration: configuration)
    return dpop ? try SessionHarness.dpop(provider: provider) : try SessionHarness(provider: provider)
  }

  static let mfa = StepUpRequirement(acrValues: ["urn:xid:test:acr:mfa"], maxAge: .seconds(60))

  @Test func aStepUpSignsTheSameUserInAgainAndReplacesTheSessionsTokens() async throws {
    let harness = try Self.harness()
    let first = try await harness.xid.signIn()
    #expect(first.claims.authenticationContextClass == "urn:xid:test:acr:password")
    let token = try await harness.xid.getAccessToken()
    harness.provider.clock.advance(by: .seconds(120))

    let stepped = try await harness.xid.signIn(options: SignInOptions(stepUp: Self.mfa))
    #expect(stepped.subject == first.subject)
    #expect(stepped.claims.authenticationContextClass == "urn:xid:test:acr:mfa")
    #expect(try #require(stepped.claims.authTime) > (try #require(first.claims.authTime)))
    let newToken = try await harness.xid.getAccessToken()
    #expect(newToken != token)
    #expect(try await harness.xid.getSession()?.claims.authenticationContextClass == "urn:xid:test:acr:mfa")
    // The replaced session's refresh token is revoked; the provider decides what refreshes carry.
    #expect(await harness.provider.counters.revocations == 1)
  }

  @Test func aStepUpOfADPoPSessionIsBoundToItsNewKey() async throws {
    let harness = try Self.harness(dpop: true)
    let first = try await harness.xid.signIn()
    let stepped = try await harness.xid.signIn(options: SignInOptions(stepUp: Self.mfa))
    #expect(stepped.dpopBinding != nil)
    #expect(stepped.dpopBinding != first.dpopBinding)
    #expect(try await harness.xid.send(HTTPRequest(url: harness.provider.url(for: .resource))).status == 200)
  }

  /// The session goes while the provider's page of a step-up is open. A sign-out here ends the
  /// pending step-up with the rest of the sign-ins in progress; a record gone by another process's
  /// hand is found when the code comes back: the step-up's tokens are revoked and nothing is stored,
  /// so the sign-out is not undone.
  @Test func aSessionThatEndsDuringAStepUpIsNotBroughtBackByIt() async throws {
    let harness = try Self.harness()
    try await harness.xid.signIn()
    let here = try await harness.xid.authorizationURL(options: SignInOptions(stepUp: Self.mfa))
    try await harness.xid.signOut()
    let ended = try await harness.provider.browser.redirect(from: here)
    await expectXidError(.stateMismatch) { try await harness.xid.handleRedirect(url: ended) }

    try await harness.xid.signIn()
    let url = try await harness.xid.authorizationURL(options: SignInOptions(stepUp: Self.mfa))
    try harness.storage.delete(key: harness.recordKey)
    await harness.provider.resetCounters()
    let callback = try await harness.provider.browser.redirect(from: url)
    let error = await expectXidError(.signInRequired) { try await harness.xid.handleRedirect(url: callback) }
    #expect(error?.reason.contains("the session ended while its step-up was in progress") == true)
    #expect(try harness.storedRecord() == nil)
    #expect(await harness.provider.counters.revocations == 2)
  }

  @Test func aStepUpWithoutASessionIsRefusedBeforeAnythingIsSent() async throws {
    let harness = try Self.harness()
    await expectXidError(.signInRequired) { try await harness.xid.signIn(options: SignInOptions(stepUp: Self.mfa)) }
    #expect(await harness.provider.counters.authorizationRequests == 0)
  }

  enum Refusal: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case acrNotAskedFor, staleAuthTime, anotherUser
    var misbehavior: TestProvider.Misbehavior {
      switch self {
      case .acrNotAskedFor: .unrequestedACR
      case .staleAuthTime: .staleAuthTime
      case .anotherUser: .otherSubjectOnSignIn
      }
    }
    var says: String {
      switch self {
      case .acrNotAskedFor: "acr \"urn:xid:test:acr:none\", not one of those asked for (\"urn:xid:test:acr:mfa\")"
      case .staleAuthTime: "max_age"
      case .anotherUser: "another user than the session's"
      }
    }
    var testDescription: String { rawValue }
  }

  @Test(arguments: Refusal.allCases)
  func aRefusedStepUpLeavesTheSessionAsItWasAndRevokesItsTokens(refusal: Refusal) async throws {
    let harness = try Self.harness()
    try await harness.xid.signIn()
    let token = try await harness.xid.getAccessToken()
    let record = try harness.storedRecord()
    harness.provider.clock.advance(by: .seconds(120))
    try await harness.provider.misbehave(refusal.misbehavior, .once)
    await harness.provider.resetCounters()

    let error = await expectXidError(.invalidIDToken) {
      try await harness.xid.signIn(options: SignInOptions(stepUp: Self.mfa))
    }
    #expect(error?.reason.contains(refusal.says) == true, "\(error?.reason ?? "")")
    #expect(error?.reason.contains("the session is as it was") == true)
    #expect(try harness.storedRecord() == record)
    #expect(try await harness.xid.getAccessToken() == token)
    #expect(await harness.provider.counters.revocations == 2)
  }

  @Test func aStepUpThatAsksForAnACRThatCannotBeMetIsRefusedByTheProvider() async throws {
    let harness = try Self.harness()
    try await harness.xid.signIn()
    let record = try harness.storedRecord()
    let error = await expectXidError(.authorizationFailed) {
      try await harness.xid.signIn(options: SignInOptions(stepUp: StepUpRequirement(acrValues: ["urn:example:gold"])))
    }
    #expect(error?.oauthError == "unmet_authentication_requirements")
    #expect(try harness.storedRecord() == record)
  }
}
