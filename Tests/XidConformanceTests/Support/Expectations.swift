import Foundation
import Testing
import XidCore
import XidTestSupport
import XidTesting

/// Expects `body` to be refused with an ``XidError`` of `code`: nothing returned (a value is recorded as
/// an issue, an error of another type too), and none of the secrets that passed between client and
/// provider (`stage.transport.secrets`) in the error's texts.
///
/// - Returns: the error, for further checks.
@discardableResult
func expectRejection<Value>(
  _ code: XidError.Code, on stage: Stage, sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () async throws -> Value
) async -> XidError? {
  let error = await expectXidError(code, sourceLocation: sourceLocation, body)
  if let error { expectNoSecret(in: error, stage.transport.secrets, sourceLocation: sourceLocation) }
  return error
}

/// Expects none of `secrets` in any text the error shows: its description, debug description,
/// localized description and reason.
func expectNoSecret(in error: XidError, _ secrets: Set<String>, sourceLocation: SourceLocation = #_sourceLocation) {
  let texts = [error.description, String(reflecting: error), error.localizedDescription, error.reason]
  for secret in secrets.sorted() where texts.contains(where: { $0.contains(secret) }) {
    Issue.record("the error reveals the secret \"\(secret)\": \(error)", sourceLocation: sourceLocation)
  }
}

/// A refused operation: the error, and what the provider had counted when it was refused.
struct Refusal {
  let error: XidError?
  let counters: TestProvider.Counters
}

extension Stage {
  /// Turns `misbehavior` on for one response and expects the sign-in to be refused with `code` (see
  /// ``expectRejection(_:on:sourceLocation:_:)``), for the rule whose description contains `rule`;
  /// then expects an honest sign-in to succeed, which shows the misbehavior caused the refusal.
  @discardableResult
  func expectSignInRefused(
    after misbehavior: TestProvider.Misbehavior, with code: XidError.Code, because rule: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> Refusal {
    try await provider.misbehave(misbehavior, .once)
    let error = await expectRejection(code, on: self, sourceLocation: sourceLocation) { try await signIn() }
    if let rule, let error {
      #expect(error.reason.contains(rule), "refused for another rule: \(error)", sourceLocation: sourceLocation)
    }
    let counters = await self.counters
    let honest = try await signIn()
    #expect(honest.idToken.subject == TestUser.alice.subject, sourceLocation: sourceLocation)
    return Refusal(error: error, counters: counters)
  }
}
