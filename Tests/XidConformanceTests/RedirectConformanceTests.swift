import Foundation
import Testing
import XidCore
import XidTesting

/// Authorization responses that do not answer the client's request, or come from another issuer, are
/// refused before the code is exchanged; an error response becomes a typed error.
@Suite(.timeLimit(.minutes(1)))
struct RedirectConformanceTests {
  @Test("Authorization response with another state (RFC 6749 §10.12)", arguments: Wire.allCases)
  func refusesARedirectWithAnotherState(over wire: Wire) async throws {
    try await withStage(wire) { stage in
      let refusal = try await stage.expectSignInRefused(after: .wrongState, with: .stateMismatch)
      #expect(refusal.counters.codeExchanges == 0)
    }
  }

  @Test("Authorization response without state")
  func refusesARedirectWithoutState() async throws {
    try await withStage(.inMemory) { stage in
      let refusal = try await stage.expectSignInRefused(after: .missingState, with: .stateMismatch)
      #expect(refusal.counters.codeExchanges == 0)
    }
  }

  @Test("Authorization response from another issuer (RFC 9207 iss mismatch)", arguments: Wire.allCases)
  func refusesARedirectFromAnotherIssuer(over wire: Wire) async throws {
    try await withStage(wire) { stage in
      let refusal = try await stage.expectSignInRefused(
        after: .wrongIssuerInRedirect, with: .issuerMismatch, because: TestProvider.Misbehavior.foreignIssuer)
      #expect(refusal.counters.codeExchanges == 0)
    }
  }

  @Test("Authorization response without the iss that discovery promises (RFC 9207)")
  func refusesARedirectWithoutThePromisedIssuer() async throws {
    try await withStage(.inMemory) { stage in
      #expect(try await stage.client.metadata().authorizationResponseIssParameterSupported)
      let refusal = try await stage.expectSignInRefused(after: .missingIssuerInRedirect, with: .issuerMismatch)
      #expect(refusal.counters.codeExchanges == 0)
    }
  }

  @Test("Authorization endpoint answers access_denied", arguments: Wire.allCases)
  func turnsAnAuthorizationErrorIntoATypedError(over wire: Wire) async throws {
    try await withStage(wire) { stage in
      let refusal = try await stage.expectSignInRefused(
        after: .authorizationError("access_denied", description: "the user said no"), with: .authorizationFailed)
      #expect(refusal.error?.oauthError == "access_denied")
      #expect(refusal.error?.reason.contains("the user said no") == true)
      #expect(refusal.counters.tokenRequests == 0)
    }
  }

  @Test("User denies the authorization request")
  func turnsTheUsersRefusalIntoAccessDenied() async throws {
    try await withStage(.inMemory, user: TestUser(subject: "bob", behavior: .deny)) { stage in
      let error = await expectRejection(.authorizationFailed, on: stage) { try await stage.signIn() }
      #expect(error?.oauthError == "access_denied")
      #expect(await stage.counters.tokenRequests == 0)
    }
  }
}
