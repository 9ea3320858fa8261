import Testing
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// What LocalAuthentication, the keychain and CryptoKit report becomes an ``XidError`` that says what
/// to do; `XidApple` feeds these mappings from `LAError`, `OSStatus` and `CryptoKitError`.
struct PresenceErrorTests {
  @Test func everyLocalAuthenticationCodeHasItsError() {
    let expected: [(Int, XidError.Code)] = [
      (-1, .authenticationFailed), (-2, .authenticationCancelled), (-3, .authenticationFallback),
      (-4, .authenticationInterrupted), (-5, .passcodeNotSet), (-6, .biometryUnavailable),
      (-7, .biometryNotEnrolled), (-8, .biometryLockout), (-9, .cancelled), (-10, .authenticationInterrupted),
      (-1004, .userPresenceRequired), (-12, .biometryUnavailable), (-14, .authenticationFailed),
      (-99, .authenticationFailed),
    ]
    for (code, xidCode) in expected {
      let error = PresenceFailure(localAuthenticationCode: code).error
      #expect(error.code == xidCode, "LAError \(code)")
      #expect(!error.reason.isEmpty)
    }
    #expect(PresenceFailure(localAuthenticationCode: -99).error.reason.contains("-99"))
  }

  @Test func cancelLockoutNotEnrolledNoPasscodeAndSystemCancelAreAllDifferent() {
    let codes = [-2, -8, -7, -5, -4].map { PresenceFailure(localAuthenticationCode: $0).error.code }
    #expect(Set(codes).count == 5)
  }

  @Test func keychainStatusesOfPresenceKeys() {
    let expected: [(Int32, XidError.Code)] = [
      (-128, .authenticationCancelled), (-25293, .authenticationFailed), (-25308, .userPresenceRequired),
      (-25300, .presenceKeyInvalidated), (-34018, .missingEntitlement), (-50, .storageFailure),
    ]
    for (status, code) in expected {
      let error = PresenceFailure.keychain(status: status, operation: "open the refresh token").error
      #expect(error.code == code, "OSStatus \(status)")
      #expect(error.reason.contains("open the refresh token"))
    }
    // In the background the keychain's "interaction not allowed" means the user must be present, not
    // that the device is locked.
    #expect(PresenceFailure.keychain(status: -25308, operation: "x").error.code != .storageLocked)
  }

  @Test func cryptoKitFailures() {
    #expect(
      PresenceFailure.cryptoKit(name: "CryptoKitError.authenticationFailure", authenticationFailure: true).error.code
        == .presenceKeyInvalidated)
    let other = PresenceFailure.cryptoKit(name: "CryptoKitError.incorrectKeySize", authenticationFailure: false).error
    #expect(other.code == .cryptoFailure && other.reason.contains("incorrectKeySize"))
  }

  @Test func everyCryptoTokenKitCodeHasItsError() {
    let expected: [(Int, XidError.Code)] = [
      (-1, .cryptoFailure), (-2, .storageFailure), (-3, .presenceKeyInvalidated), (-4, .authenticationCancelled),
      (-5, .authenticationFailed), (-6, .presenceKeyInvalidated), (-7, .presenceKeyInvalidated),
      (-8, .cryptoFailure), (-9, .userPresenceRequired), (-99, .storageFailure),
    ]
    for (code, xidCode) in expected {
      let error = PresenceFailure(domain: .tokenKit, code: code, operation: "open the refresh token").error
      #expect(error.code == xidCode, "TKError \(code)")
      #expect(error.reason.contains("open the refresh token") && error.reason.contains("TKError"))
    }
    #expect(PresenceFailure(domain: .tokenKit, code: -99, operation: "x").error.reason.contains("-99"))
  }

  @Test func eachDomainsCodesGoToTheirOwnMapping() {
    #expect(PresenceFailure(domain: .localAuthentication, code: -7, operation: "x") == .biometryNotEnrolled)
    #expect(PresenceFailure(domain: .tokenKit, code: -7, operation: "x") == .tokenKit(code: -7, operation: "x"))
    #expect(
      PresenceFailure(domain: .osStatus, code: -25300, operation: "x") == .keychain(status: -25300, operation: "x"))
    // An OSStatus's -4 is not CryptoTokenKit's canceledByUser.
    #expect(PresenceFailure(domain: .osStatus, code: -4, operation: "x").error.code == .storageFailure)
  }

  @Test func onlyANotFoundAnswerMeansTheRightIsMissing() {
    for code in [-1, -2, -4, -5, -6, -7, -8, -9, -10, -1004] {
      #expect(!PresenceFailure.meansMissingRight(domain: .localAuthentication, code: code), "LAError \(code)")
    }
    #expect(PresenceFailure.meansMissingRight(domain: .localAuthentication, code: -1005))
    #expect(PresenceFailure.meansMissingRight(domain: .osStatus, code: -25300))
    #expect(!PresenceFailure.meansMissingRight(domain: .osStatus, code: -128))
    #expect(PresenceFailure.meansMissingRight(domain: .tokenKit, code: -6))
    #expect(!PresenceFailure.meansMissingRight(domain: .tokenKit, code: -5))
    #expect(!PresenceFailure.meansMissingRight(domain: .other, code: -6))
  }

  @Test func everyPresenceCodeTellsTheUserWhatToDo() {
    func action(_ code: XidError.Code) -> XidUserAction { XidError(code, "test").userAction }
    #expect(action(.sessionLocked) == .unlockSession)
    for code: XidError.Code in [
      .userPresenceRequired, .authenticationCancelled, .authenticationFailed, .authenticationFallback,
      .authenticationInterrupted, .passcodeNotSet, .biometryUnavailable, .biometryNotEnrolled, .biometryLockout,
    ] {
      #expect(action(code) == .confirmPresence, "\(code)")
    }
    #expect(action(.presenceKeyInvalidated) == .signIn)
    #expect(action(.decryptionFailed) == XidUserAction.none)
  }

  @Test func theNewCodesAreListed() {
    for code: XidError.Code in [
      .decryptionFailed, .sessionLocked, .userPresenceRequired, .authenticationCancelled, .authenticationFailed,
      .authenticationFallback, .authenticationInterrupted, .passcodeNotSet, .biometryUnavailable,
      .biometryNotEnrolled, .biometryLockout, .presenceKeyInvalidated,
    ] {
      #expect(XidError.Code.allCases.filter { $0 == code }.count == 1, "\(code)")
    }
  }
}
