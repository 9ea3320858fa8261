import ExampleDiagnostics
import Foundation
import Testing

/// How checks 1 to 3 judge what the device did: the portable half of each check, whose Apple half
/// (ExampleShared/Diagnostics/DeviceChecks.swift) only calls the system and Xid.
@Suite struct DeviceCheckJudgementTests {
  static let now = Date(timeIntervalSince1970: 1_796_299_200)
  static let missingRight = ObservedError(
    domain: ObservedError.localAuthenticationDomain, code: -1005, message: "Right not found")

  // MARK: - 1. LARightStore, a missing right

  @Test func aMissingRightInAPrivateCodeOfLocalAuthenticationThatXidReadsAsMissingIsAsExpected() {
    let result = RightStoreObservation(
      lookup: Self.missingRight, removal: nil, xidLookup: .missing, xidRemoval: nil
    ).result(at: Self.now)
    #expect(result.verdict == .asExpected)
    #expect(result.check == .rightStoreMissingRight)
    #expect(
      result.observed.first
        == "LARightStore.right(forIdentifier:): failed: com.apple.LocalAuthentication -1005: Right not found")
    #expect(result.ranIn == [.app] && result.ranAt == Self.now)
  }

  @Test(arguments: [-1, -7, -14, -1004])
  func aPublicLAErrorCodeForAMissingRightIsUnexpected(code: Int) {
    let lookup = ObservedError(domain: ObservedError.localAuthenticationDomain, code: code, message: "")
    let result = RightStoreObservation(lookup: lookup, removal: nil, xidLookup: .missing, xidRemoval: nil)
      .result(at: Self.now)
    #expect(result.verdict == .unexpected)
    #expect(result.next?.contains("PresenceFailure.meansMissingRight") == true)
  }

  @Test func xidReadingTheAnswerAsAFailureOrARightFoundIsUnexpected() {
    let failed = RightStoreObservation(
      lookup: Self.missingRight, removal: nil, xidLookup: .failed(.xid("authenticationFailed", "…")), xidRemoval: nil)
    #expect(failed.result(at: Self.now).verdict == .unexpected)
    let found = RightStoreObservation(lookup: nil, removal: nil, xidLookup: .found, xidRemoval: nil)
    #expect(found.result(at: Self.now).verdict == .unexpected)
    let removal = RightStoreObservation(
      lookup: Self.missingRight, removal: ObservedError(domain: "NSOSStatusErrorDomain", code: -25300, message: ""),
      xidLookup: .missing, xidRemoval: nil)
    #expect(removal.result(at: Self.now).verdict == .unexpected)
  }

  // MARK: - 2. One LAContext, decrypt and sign

  static let confirmed = OneContextObservation.Round(evaluation: nil, decryption: .succeeded, signature: .succeeded)

  @Test func bothKeysWorkingAfterEitherEvaluationIsAsExpected() {
    let result = OneContextObservation(
      hasSecureEnclave: true, evaluatedForDecrypting: Self.confirmed, evaluatedForSigning: Self.confirmed
    ).result(at: Self.now)
    #expect(result.verdict == .asExpected)
    #expect(
      result.observed == [
        "context evaluated for decrypting: confirmed; decrypt succeeded; sign succeeded",
        "context evaluated for signing: confirmed; decrypt succeeded; sign succeeded",
      ])
  }

  @Test func aUseThatNeededAPromptOfItsOwnIsUnexpected() {
    let needsPrompt = OneContextObservation.Round(
      evaluation: nil, decryption: .succeeded,
      signature: .failed(.xid("userPresenceRequired", "retry from the app in the foreground")))
    let result = OneContextObservation(
      hasSecureEnclave: true, evaluatedForDecrypting: needsPrompt, evaluatedForSigning: Self.confirmed
    ).result(at: Self.now)
    #expect(result.verdict == .unexpected)
    #expect(
      result.next?.contains("signing with the context evaluated for decrypting needed a prompt of its own") == true)
  }

  @Test func aWrongResultIsUnexpected() {
    let wrong = OneContextObservation.Round(evaluation: nil, decryption: .wrongResult, signature: .succeeded)
    let result = OneContextObservation(
      hasSecureEnclave: true, evaluatedForDecrypting: Self.confirmed, evaluatedForSigning: wrong
    ).result(at: Self.now)
    #expect(result.verdict == .unexpected)
  }

  @Test func aCancelledPromptLeavesTheCheckNotRun() {
    let cancelled = OneContextObservation.Round(
      evaluation: .xid("authenticationCancelled", "the user cancelled"), decryption: .notTried, signature: .notTried)
    let result = OneContextObservation(
      hasSecureEnclave: true, evaluatedForDecrypting: Self.confirmed, evaluatedForSigning: cancelled
    ).result(at: Self.now)
    #expect(result.verdict == .notRun)
  }

  @Test func theSimulatorAndADeviceWithoutPasscodeSkipTheCheck() {
    #expect(OneContextObservation(hasSecureEnclave: false).result(at: Self.now).verdict == .skipped)
    let noPasscode = OneContextObservation(hasSecureEnclave: true, setup: .xid("passcodeNotSet", "…"))
    #expect(noPasscode.result(at: Self.now).verdict == .skipped)
    let broken = OneContextObservation(hasSecureEnclave: true, setup: .xid("storageFailure", "…"))
    #expect(broken.result(at: Self.now).verdict == .unexpected)
  }

  // MARK: - 3. .biometryCurrentSet after an enrollment change

  @Test func theFirstRunWaitsForTheEnrollmentChange() {
    let result = EnrollmentChangeObservation.prepared(prompt: nil, baseline: .succeeded, biometryStateReadable: true)
      .result(at: Self.now)
    #expect(result.verdict == .waiting)
    #expect(result.next == EnrollmentChangeObservation.enrollmentSteps)
    let unchanged = EnrollmentChangeObservation.unchanged(preparedAt: Self.now).result(at: Self.now)
    #expect(unchanged.verdict == .waiting)
    #expect(unchanged.observed == ["key made at 2026-12-03T12:00:00Z; the enrolled biometry's state: unchanged since"])
  }

  @Test func noBiometryEnrolledSkipsTheCheck() {
    let result = EnrollmentChangeObservation.couldNotPrepare(.xid("biometryNotEnrolled", "…")).result(at: Self.now)
    #expect(result.verdict == .skipped)
  }

  @Test(arguments: ["authenticationFailed", "storageFailure", "cryptoFailure", "presenceKeyInvalidated"])
  func afterAChangeAKeyThatRefusesTheUserIsReportedAsInvalidated(code: String) {
    let result = EnrollmentChangeObservation.afterChange(
      preparedAt: Self.now, state: .changed, keyExists: true, prompt: nil,
      decryption: .failed(.xid(code, "the user was not verified (errSecAuthFailed)"))
    ).result(at: Self.now)
    #expect(result.verdict == .asExpected)
    #expect(result.observed.last == "Xid reports: presenceKeyInvalidated")
  }

  @Test func aKeyTheSystemDeletedIsAsExpected() {
    let result = EnrollmentChangeObservation.afterChange(
      preparedAt: Self.now, state: .changed, keyExists: false, prompt: nil, decryption: .notTried
    ).result(at: Self.now)
    #expect(result.verdict == .asExpected)
  }

  @Test func aKeyThatStillOpensAfterTheChangeIsUnexpected() {
    let result = EnrollmentChangeObservation.afterChange(
      preparedAt: Self.now, state: .changed, keyExists: true, prompt: nil, decryption: .succeeded
    ).result(at: Self.now)
    #expect(result.verdict == .unexpected)
  }

  @Test func aFailureXidWouldCallTryAgainIsUnexpected() {
    // With no readable state, authenticationFailed stays "try again" in Xid: the check says so.
    let unreadable = EnrollmentChangeObservation.afterChange(
      preparedAt: Self.now, state: .unreadable, keyExists: true, prompt: nil,
      decryption: .failed(.xid("authenticationFailed", "…"))
    ).result(at: Self.now)
    #expect(unreadable.verdict == .unexpected)
    #expect(unreadable.observed.last == "Xid reports: authenticationFailed")
    // No face or finger left: biometryNotEnrolled is an invalidated key whatever the state.
    let removed = EnrollmentChangeObservation.afterChange(
      preparedAt: Self.now, state: .unreadable, keyExists: true, prompt: .xid("biometryNotEnrolled", "…"),
      decryption: .notTried
    ).result(at: Self.now)
    #expect(removed.verdict == .asExpected)
    let lockedOut = EnrollmentChangeObservation.afterChange(
      preparedAt: Self.now, state: .changed, keyExists: true, prompt: .xid("biometryLockout", "…"),
      decryption: .notTried
    ).result(at: Self.now)
    #expect(lockedOut.verdict == .unexpected)
  }

  @Test func aCancelledPromptAfterTheChangeLeavesTheCheckNotRun() {
    let result = EnrollmentChangeObservation.afterChange(
      preparedAt: Self.now, state: .changed, keyExists: true, prompt: .xid("authenticationCancelled", "…"),
      decryption: .notTried
    ).result(at: Self.now)
    #expect(result.verdict == .notRun)
  }

  @Test func xidsReportMirrorsTheVault() {
    let failed = ObservedError.xid("authenticationFailed", "")
    #expect(EnrollmentChangeObservation.xidReport(for: failed, state: .changed) == "presenceKeyInvalidated")
    #expect(EnrollmentChangeObservation.xidReport(for: failed, state: .unchanged) == "authenticationFailed")
    #expect(
      EnrollmentChangeObservation.xidReport(for: .xid("userPresenceRequired", ""), state: .changed)
        == "userPresenceRequired")
    let raw = ObservedError(domain: "CryptoTokenKit", code: -3, message: "")
    #expect(EnrollmentChangeObservation.xidReport(for: raw, state: .changed) == "CryptoTokenKit -3")
  }
}
