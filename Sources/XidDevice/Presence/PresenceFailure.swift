/// A failure LocalAuthentication, the keychain or CryptoKit reported, in a form the portable core can
/// turn into an ``XidError`` that says what to do. `XidApple` makes one from `LAError`, `OSStatus`
/// and `CryptoKitError`; the mapping itself lives here so that it is tested on every platform.
package enum PresenceFailure: Sendable, Hashable {
  // `LAError.Code`, iOS 17.4.
  /// `LAError.authenticationFailed` (-1).
  case authenticationFailed
  /// `LAError.userCancel` (-2).
  case userCancel
  /// `LAError.userFallback` (-3).
  case userFallback
  /// `LAError.systemCancel` (-4).
  case systemCancel
  /// `LAError.passcodeNotSet` (-5).
  case passcodeNotSet
  /// `LAError.biometryNotAvailable` (-6, formerly `touchIDNotAvailable`).
  case biometryNotAvailable
  /// `LAError.biometryNotEnrolled` (-7, formerly `touchIDNotEnrolled`).
  case biometryNotEnrolled
  /// `LAError.biometryLockout` (-8, formerly `touchIDLockout`).
  case biometryLockout
  /// `LAError.appCancel` (-9).
  case appCancel
  /// `LAError.invalidContext` (-10).
  case invalidContext
  /// `LAError.notInteractive` (-1004).
  case notInteractive
  /// An `LAError` code this version of Xid does not know (a newer SDK's, or one unavailable on iOS).
  case unknownLocalAuthentication(code: Int)
  /// A keychain `OSStatus` from an operation on a presence key.
  case keychain(status: Int32, operation: String)
  /// A CryptoKit error, by the name of its case.
  case cryptoKit(name: String, authenticationFailure: Bool)
  /// A CryptoTokenKit error (`TKError.Code.rawValue`, the `NSError` code in `TKErrorDomain`): what the
  /// Secure Enclave's token reports for an operation on a presence key.
  case tokenKit(code: Int, operation: String)

  /// The failure of an `LAError` code (`LAError.Code.rawValue`, the `NSError` code in
  /// `LAErrorDomain`).
  package init(localAuthenticationCode code: Int) {
    switch code {
    case -1: self = .authenticationFailed
    case -2: self = .userCancel
    case -3: self = .userFallback
    case -4: self = .systemCancel
    case -5: self = .passcodeNotSet
    case -6: self = .biometryNotAvailable
    case -7: self = .biometryNotEnrolled
    case -8: self = .biometryLockout
    case -9: self = .appCancel
    case -10: self = .invalidContext
    // macOS only: no companion Apple Watch, no paired or a disconnected Touch ID keyboard.
    case -11, -12, -13: self = .biometryNotAvailable
    case -1004: self = .notInteractive
    default: self = .unknownLocalAuthentication(code: code)
    }
  }

  /// The error domains whose codes Xid reads: `XidApple` names an `NSError`'s domain with one of these.
  package enum Domain: Sendable, Hashable {
    /// `LAErrorDomain`: `LAError.Code`.
    case localAuthentication
    /// `NSOSStatusErrorDomain`: a keychain `OSStatus`.
    case osStatus
    /// `TKErrorDomain`: `TKError.Code` of CryptoTokenKit.
    case tokenKit
    /// Any other domain; its code is reported as it is.
    case other
  }

  /// The failure of an `NSError` of `domain` with `code`, from an operation described by `operation`.
  package init(domain: Domain, code: Int, operation: String) {
    switch domain {
    case .localAuthentication: self.init(localAuthenticationCode: code)
    case .tokenKit: self = .tokenKit(code: code, operation: operation)
    case .osStatus, .other: self = .keychain(status: Int32(truncatingIfNeeded: code), operation: operation)
    }
  }

  /// The public `LAError` codes of every platform's SDK (iOS 17.4, macOS 14.4): -1 to -14 and -1004.
  package static func isPublicLocalAuthenticationCode(_ code: Int) -> Bool {
    (-14 ... -1).contains(code) || code == -1004
  }

  /// Whether `LARightStore` answering a lookup or a removal with this error means that no right is
  /// saved under the identifier, rather than a failure to report.
  ///
  /// The SDK names no `LAError` code for a missing right: `LARightStore` answers with a code of
  /// LocalAuthentication's domain that is not one of the public ones. A public code (the user
  /// cancelled, no passcode, not interactive, …) is a real failure; the keychain's
  /// `errSecItemNotFound` and CryptoTokenKit's `objectNotFound` mean missing too.
  package static func meansMissingRight(domain: Domain, code: Int) -> Bool {
    switch domain {
    case .localAuthentication: !isPublicLocalAuthenticationCode(code)
    case .osStatus: code == Int(KeychainStatus.itemNotFound)
    case .tokenKit: code == TokenKitCode.objectNotFound
    case .other: false
    }
  }

  /// CryptoTokenKit's `TKError.Code` values (`TKError.h`, iOS 17.4).
  package enum TokenKitCode {
    /// `notImplemented`: the token cannot do this operation.
    package static let notImplemented = -1
    /// `communicationError`: the token could not be reached.
    package static let communicationError = -2
    /// `corruptedData`: the data does not open with the key.
    package static let corruptedData = -3
    /// `canceledByUser`: the user cancelled the prompt.
    package static let canceledByUser = -4
    /// `authenticationFailed`: the user was not verified, or the key no longer accepts them.
    package static let authenticationFailed = -5
    /// `objectNotFound`: the key is gone.
    package static let objectNotFound = -6
    /// `tokenNotFound`: the token that held the key (the Secure Enclave's) is not there.
    package static let tokenNotFound = -7
    /// `badParameter`: the key or the data is not of the expected kind.
    package static let badParameter = -8
    /// `authenticationNeeded`: the operation needs an authenticated context.
    package static let authenticationNeeded = -9
  }

  /// The keychain's status codes that mean something for presence (`SecBase.h`).
  package enum KeychainStatus {
    /// `errSecUserCanceled`: the user cancelled the prompt the keychain showed.
    package static let userCanceled: Int32 = -128
    /// `errSecAuthFailed`: the user was not verified.
    package static let authFailed: Int32 = -25293
    /// `errSecInteractionNotAllowed`: a prompt was needed but cannot be shown (background, locked).
    package static let interactionNotAllowed: Int32 = -25308
    /// `errSecItemNotFound`: the key is gone.
    package static let itemNotFound: Int32 = -25300
    /// `errSecMissingEntitlement`: the keychain access group is not in the entitlements.
    package static let missingEntitlement: Int32 = -34018
  }

  /// The ``XidError`` to report: a code to switch on and a reason that says what to do.
  package var error: XidError {
    switch self {
    case .authenticationFailed:
      XidError(
        .authenticationFailed,
        "the user was not recognised (LAError.authenticationFailed); nothing changed, let them try again")
    case .userCancel:
      XidError(
        .authenticationCancelled, "the user cancelled the prompt (LAError.userCancel); nothing changed")
    case .userFallback:
      XidError(
        .authenticationFallback,
        "the user chose the prompt's fallback button (LAError.userFallback); this requirement allows biometry only: offer another way, or use .biometryWithPasscodeFallback"
      )
    case .systemCancel:
      XidError(
        .authenticationInterrupted,
        "the system cancelled the prompt (LAError.systemCancel), for example because another app came to the front; try again when the app is active"
      )
    case .passcodeNotSet:
      XidError(
        .passcodeNotSet,
        "the device has no passcode (LAError.passcodeNotSet); ask the user to set one in Settings")
    case .biometryNotAvailable:
      XidError(
        .biometryUnavailable,
        "biometry is not available (LAError.biometryNotAvailable): the device has none, the Info.plist lacks NSFaceIDUsageDescription, or the user turned Face ID off for this app in Settings"
      )
    case .biometryNotEnrolled:
      XidError(
        .biometryNotEnrolled,
        "no face or finger is enrolled (LAError.biometryNotEnrolled); ask the user to enroll in Settings, or use a requirement with a passcode fallback"
      )
    case .biometryLockout:
      XidError(
        .biometryLockout,
        "biometry is locked after too many failed attempts (LAError.biometryLockout); the user unlocks it with the device passcode, then tries again"
      )
    case .appCancel:
      XidError(.cancelled, "the prompt was cancelled by the app (LAError.appCancel); nothing to do")
    case .invalidContext:
      XidError(
        .authenticationInterrupted,
        "the authentication context was invalidated (LAError.invalidContext); try again")
    case .notInteractive:
      XidError(
        .userPresenceRequired,
        "the user must confirm it's them, but no prompt can be shown here (LAError.notInteractive); retry from the app in the foreground"
      )
    case .unknownLocalAuthentication(let code):
      XidError(
        .authenticationFailed,
        "LocalAuthentication failed with code \(code), which this version of Xid does not know; let the user try again"
      )
    case .keychain(let status, let operation):
      Self.keychainError(status, operation)
    case .cryptoKit(let name, let authenticationFailure):
      authenticationFailure
        ? XidError(
          .presenceKeyInvalidated,
          "the sealed secret does not open with its key (\(name)); sign the user in again")
        : XidError(.cryptoFailure, "CryptoKit failed (\(name))")
    case .tokenKit(let code, let operation):
      Self.tokenKitError(code, operation)
    }
  }

  private static func tokenKitError(_ code: Int, _ operation: String) -> XidError {
    switch code {
    case TokenKitCode.canceledByUser:
      XidError(
        .authenticationCancelled,
        "the user cancelled the prompt to \(operation) (TKError.canceledByUser); nothing changed")
    case TokenKitCode.authenticationFailed:
      XidError(
        .authenticationFailed,
        "the user was not verified to \(operation) (TKError.authenticationFailed); nothing changed, let them try again")
    case TokenKitCode.authenticationNeeded:
      XidError(
        .userPresenceRequired,
        "the key needs the user to \(operation) and the context was not confirmed (TKError.authenticationNeeded); retry from the app in the foreground"
      )
    case TokenKitCode.objectNotFound, TokenKitCode.tokenNotFound:
      XidError(
        .presenceKeyInvalidated,
        "the key to \(operation) no longer exists (TKError \(code == TokenKitCode.objectNotFound ? "objectNotFound" : "tokenNotFound")): the enrolled biometry or the passcode changed, or it was deleted; sign the user in again"
      )
    case TokenKitCode.corruptedData:
      XidError(
        .presenceKeyInvalidated,
        "the sealed data does not open with the key to \(operation) (TKError.corruptedData); sign the user in again")
    case TokenKitCode.communicationError:
      XidError(
        .storageFailure,
        "the Secure Enclave could not be reached to \(operation) (TKError.communicationError); try again")
    case TokenKitCode.notImplemented, TokenKitCode.badParameter:
      XidError(
        .cryptoFailure,
        "the Secure Enclave refused to \(operation) (TKError \(code == TokenKitCode.notImplemented ? "notImplemented" : "badParameter")): the key is not of the kind Xid makes"
      )
    default:
      XidError(
        .storageFailure,
        "CryptoTokenKit could not \(operation) (TKError code \(code), which this version of Xid does not know)")
    }
  }

  private static func keychainError(_ status: Int32, _ operation: String) -> XidError {
    switch status {
    case KeychainStatus.userCanceled:
      XidError(
        .authenticationCancelled, "the user cancelled the prompt to \(operation) (errSecUserCanceled); nothing changed")
    case KeychainStatus.authFailed:
      XidError(
        .authenticationFailed,
        "the user was not verified to \(operation) (errSecAuthFailed); nothing changed, let them try again")
    case KeychainStatus.interactionNotAllowed:
      XidError(
        .userPresenceRequired,
        "the keychain needs the user to \(operation) but cannot ask here (errSecInteractionNotAllowed: in the background, in an extension, or while the device is locked); retry from the app in the foreground"
      )
    case KeychainStatus.itemNotFound:
      XidError(
        .presenceKeyInvalidated,
        "the key to \(operation) no longer exists (errSecItemNotFound): the enrolled biometry or the passcode changed, or it was deleted; sign the user in again"
      )
    case KeychainStatus.missingEntitlement:
      XidError(
        .missingEntitlement,
        "the keychain refused the key's access group to \(operation) (errSecMissingEntitlement, -34018): add it to the Keychain Sharing entitlement of the app and of each extension"
      )
    default:
      XidError(.storageFailure, "the keychain could not \(operation) (OSStatus \(status))")
    }
  }
}
