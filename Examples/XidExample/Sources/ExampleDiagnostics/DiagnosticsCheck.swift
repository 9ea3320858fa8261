/// The device checks of the example's Diagnostics screen: the paths of Xid that only a real iPhone
/// can show (the keychain, the Secure Enclave, LocalAuthentication, extensions), each with what it
/// does and the outcome Xid's code expects.
///
/// The expectations are Xid's reading of Apple's documentation and headers. None is confirmed on a
/// device yet: ``verifiedOn`` is `nil` for all, and the report says "unverified". When a person has
/// run a check on an iPhone and the outcome matched, name the device and system here and in
/// docs/apple.md.
public enum DiagnosticsCheck: String, Codable, Sendable, Hashable, CaseIterable {
  /// Which error `LARightStore` gives for a right that was never saved.
  case rightStoreMissingRight = "right-store-missing-right"
  /// Whether one evaluated `LAContext` lets the Secure Enclave decrypt and sign without a second
  /// prompt.
  case oneContextDecryptsAndSigns = "one-context-decrypts-and-signs"
  /// The error a `.biometryCurrentSet` key gives after an enrollment change.
  case biometryEnrollmentChange = "biometry-enrollment-change"
  /// An extension reads the keychain item the app wrote in the shared access group.
  case extensionReadsKeychainItem = "extension-reads-keychain-item"
  /// An extension takes the account's lock in the App Group container.
  case extensionTakesAppGroupLock = "extension-takes-app-group-lock"

  /// The check's place on the screen and in the report, from 1.
  public var number: Int { Self.allCases.firstIndex(of: self)! + 1 }

  /// One line naming the check.
  public var title: String {
    switch self {
    case .rightStoreMissingRight: "LARightStore: a right that was never saved"
    case .oneContextDecryptsAndSigns: "One LAContext: the Secure Enclave decrypts and signs after one prompt"
    case .biometryEnrollmentChange: "A .biometryCurrentSet key after an enrollment change"
    case .extensionReadsKeychainItem: "An extension reads the app's keychain item"
    case .extensionTakesAppGroupLock: "An extension takes the App Group lock"
    }
  }

  /// What the check does on the device.
  public var procedure: String {
    switch self {
    case .rightStoreMissingRight:
      "Asks LARightStore.shared for a right under a new random identifier, and to remove it; then Xid's PersistedRightStore does the same. No prompt."
    case .oneContextDecryptsAndSigns:
      "Makes a sealing key and a signing key in the Secure Enclave (biometryWithPasscodeFallback) with Xid's SecureEnclaveKeyStore. Then twice: one context is evaluated (one prompt), for decrypting and then for signing; with it, the check opens sealed bytes and signs. After its evaluation the context may not prompt, so a use that needs a prompt of its own fails instead of asking."
    case .biometryEnrollmentChange:
      "First run: makes a .biometryCurrentSet key, seals random bytes, opens them once (one prompt), and keeps the sealed bytes and a hash of the enrolled biometry's state. You then enroll or remove a face or finger. Second run: opens the bytes again (one prompt, if the system shows one)."
    case .extensionReadsKeychainItem:
      "Prepare writes a random value in the shared keychain access group (service dev.xid.example.diagnostics, readable after the first unlock, as the tokens are). The App Intent \"Run Xid Diagnostics\" and the Account widget read it in their own processes and store in the App Group whether it matched (never the value)."
    case .extensionTakesAppGroupLock:
      "The extension takes the account's lock, the file in the App Group container that refreshes take (Xid.shared.checkAccountLock()). Hold the Lock makes the app hold it for 8 seconds and asks the widget to reload meanwhile."
    }
  }

  /// The outcome Xid's code expects.
  public var expectation: String {
    switch self {
    case .rightStoreMissingRight:
      "the lookup fails in com.apple.LocalAuthentication with a code that is not a public LAError code (not -1 to -14, not -1004), and removing succeeds or fails the same way; PersistedRightStore.key(identifier:) gives nil and remove(identifier:) succeeds"
    case .oneContextDecryptsAndSigns:
      "one prompt per round, two in all; in both rounds decrypting gives back the sealed bytes and the signature verifies, with no error"
    case .biometryEnrollmentChange:
      "the enrolled biometry's state has changed; the key is gone, or opening fails (authenticationFailed, errSecAuthFailed or a CryptoTokenKit error), never giving the bytes back; Xid reports presenceKeyInvalidated, sign in again"
    case .extensionReadsKeychainItem:
      "every extension that ran reads the value the app wrote (it matches); no missingEntitlement, no storageLocked"
    case .extensionTakesAppGroupLock:
      "every extension takes the lock, shared (a file in the App Group); an attempt that starts while the app holds it waits until the app lets go, or fails with lockTimeout after 10 s, and never gets it sooner"
    }
  }

  /// What of Xid relies on the expectation.
  public var reliedOnBy: String {
    switch self {
    case .rightStoreMissingRight:
      "PersistedRightStore (DeviceCredential) tells a missing credential (enroll again) from a failure by this error"
    case .oneContextDecryptsAndSigns:
      "with protectsDPoPKey, a refresh opens the refresh token and signs its DPoP proof after one prompt"
    case .biometryEnrollmentChange:
      "RefreshTokenVault tells a key that an enrollment change invalidated (sign in again) from a user not recognised (try again)"
    case .extensionReadsKeychainItem:
      "KeychainTokenStorage(accessGroup:appGroup:) shares the session with App Intents and widgets"
    case .extensionTakesAppGroupLock:
      "processes that share a session never refresh it at once, so that none signs the others out"
    }
  }

  /// The device and system on which a person saw the expected outcome; `nil` while unverified.
  public var verifiedOn: String? { nil }

  /// Where the check runs.
  public var runsIn: String {
    switch self {
    case .rightStoreMissingRight, .oneContextDecryptsAndSigns, .biometryEnrollmentChange: "the app"
    case .extensionReadsKeychainItem, .extensionTakesAppGroupLock: "the App Intent and the widget"
    }
  }
}
