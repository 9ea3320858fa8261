import Foundation
import Testing

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// The fault matrix's own judgement, on made-up rounds: a check that cannot fail proves nothing.
struct MatrixChecksTests {
  static func round(refreshes: Int, failed: Int = 0, applied: Int = 0, errors: [String] = [], tokens: Int = 1)
    -> RoundObservation
  {
    var round = RoundObservation()
    round.refreshRequests = refreshes
    round.requestsFailedByFault = failed
    round.faultsApplied = applied
    for error in errors { round.errors[error, default: 0] += 1 }
    round.tokens = tokens
    return round
  }

  static let kept: (record: TokenRecord?, corrupt: Bool) = (
    TokenRecord(
      version: 3, accessToken: "a", tokenType: "Bearer", expiresAt: nil, refreshToken: "r", idToken: nil,
      scopes: ["openid"], issuer: "https://op.example", clientId: "c", account: "default", pinnedSubject: "alice"),
    false
  )

  @Test(arguments: MatrixFault.allCases.filter { $0.isSignOut || $0.isNewSignIn })
  func aSecondRefreshAfterARequestThatWasOnlyDelayedFailsTheOneRefreshCheck(fault: MatrixFault) {
    let delayed = [Self.round(refreshes: 2, applied: 1), Self.round(refreshes: 1)]
    let checks = MatrixResult.checks(
      of: fault, rounds: delayed, stored: Self.kept, leaks: 0, droppedTokenRevoked: true)
    #expect(checks["oneRefreshPerExpiry"] == false)
    let once = [Self.round(refreshes: 1, applied: 1), Self.round(refreshes: 1)]
    #expect(
      MatrixResult.checks(of: fault, rounds: once, stored: Self.kept, leaks: 0, droppedTokenRevoked: true)[
        "oneRefreshPerExpiry"] == true)
  }

  @Test func aRetryAfterARequestAFaultMadeFailIsNotASecondRefresh() {
    let rounds = [Self.round(refreshes: 2, failed: 1, applied: 1), Self.round(refreshes: 1)]
    let checks = MatrixResult.checks(
      of: .serverError, rounds: rounds, stored: Self.kept, leaks: 0, droppedTokenRevoked: nil)
    #expect(checks["oneRefreshPerExpiry"] == true)
    let twice = [Self.round(refreshes: 3, failed: 1, applied: 1), Self.round(refreshes: 1)]
    #expect(
      MatrixResult.checks(of: .serverError, rounds: twice, stored: Self.kept, leaks: 0, droppedTokenRevoked: nil)[
        "oneRefreshPerExpiry"] == false)
  }

  @Test(arguments: MatrixFault.allCases.filter { $0.isSignOut || $0.isNewSignIn })
  func aRaceThatLeavesTheFirstUsersRefreshTokenUnrevokedFails(fault: MatrixFault) {
    let rounds = [Self.round(refreshes: 1, applied: 1), Self.round(refreshes: 1)]
    for revoked: Bool? in [false, nil] {
      let checks = MatrixResult.checks(
        of: fault, rounds: rounds, stored: Self.kept, leaks: 0, droppedTokenRevoked: revoked)
      #expect(checks["droppedRefreshTokenRevoked"] == false)
    }
    let checks = MatrixResult.checks(of: fault, rounds: rounds, stored: Self.kept, leaks: 0, droppedTokenRevoked: true)
    #expect(checks["droppedRefreshTokenRevoked"] == true)
    // Other faults race no sign-in or sign-out: the check does not apply.
    let other = MatrixResult.checks(
      of: .serverError, rounds: rounds, stored: Self.kept, leaks: 0, droppedTokenRevoked: nil)
    #expect(other["droppedRefreshTokenRevoked"] == .some(nil))
  }

  @Test func callersThatGaveUpWaitingForAHangingRefresherAreATransientFailureNotASignOut() {
    let rounds = [
      Self.round(refreshes: 2, failed: 1, applied: 1, errors: ["lockTimeout", "lockTimeout"]),
      Self.round(refreshes: 1),
    ]
    let outcome = MatrixResult.outcome(of: .killedLockHolder, rounds: rounds, stored: Self.kept)
    #expect(outcome == .keptAfterTransientFailure)
    #expect(MatrixFault.killedLockHolder.accepts(outcome, rounds: rounds))
    let checks = MatrixResult.checks(
      of: .killedLockHolder, rounds: rounds, stored: Self.kept, leaks: 0, droppedTokenRevoked: nil)
    #expect(checks["noSignOutWithoutDeadGrant"] == true)
    #expect(checks["noRecordLostOrCorrupt"] == true)
    // Another error in that round is not accepted, nor is a lockTimeout where no refresher hangs.
    let mixed = [
      Self.round(refreshes: 2, failed: 1, errors: ["lockTimeout", "cryptoFailure"]), Self.round(refreshes: 1),
    ]
    #expect(MatrixResult.outcome(of: .killedLockHolder, rounds: mixed, stored: Self.kept) == .unexpected)
    #expect(!MatrixFault.storageWriteFails.accepts(.keptAfterTransientFailure, rounds: rounds))
  }

  @Test func aRecordLeftOnARefreshTokenTheProviderSpentIsNoSessionKept() {
    // The tokens of the refresh whose record could not be read were lost: the next expiry sent the
    // spent token and the provider ended the grant. That is a failure of the case, not an outcome.
    let lost = [
      Self.round(refreshes: 1, applied: 1, errors: ["storageLocked"]),
      Self.round(refreshes: 1, errors: ["sessionExpired"], tokens: 0),
    ]
    let outcome = MatrixResult.outcome(of: .unreadableAfterAnswer, rounds: lost, stored: (nil, false))
    #expect(outcome == .endedByProvider)
    #expect(!MatrixFault.unreadableAfterAnswer.accepts(outcome, rounds: lost))
    let checks = MatrixResult.checks(
      of: .unreadableAfterAnswer, rounds: lost, stored: (nil, false), leaks: 0, droppedTokenRevoked: nil)
    #expect(checks["noSignOutWithoutDeadGrant"] == false)
    // A process that read the record while it could not be read is a transient failure.
    let kept = [Self.round(refreshes: 1, applied: 1, errors: ["storageLocked"]), Self.round(refreshes: 1)]
    let transient = MatrixResult.outcome(of: .unreadableAfterAnswer, rounds: kept, stored: Self.kept)
    #expect(MatrixFault.unreadableAfterAnswer.accepts(transient, rounds: kept))
  }
}
