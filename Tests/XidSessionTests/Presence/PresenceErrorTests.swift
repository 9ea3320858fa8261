import Testing
import XidTestSupport

@testable import XidCore

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
