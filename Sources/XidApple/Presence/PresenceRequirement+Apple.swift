#if canImport(LocalAuthentication) && canImport(Security) && !os(watchOS) && !os(tvOS)
  @preconcurrency import LocalAuthentication
  import Security
  import XidCore

  extension PresenceRequirement {
    /// The `LARight` requirement.
    var authenticationRequirement: LAAuthenticationRequirement {
      switch self {
      case .biometryWithPasscodeFallback: .biometry(fallback: .devicePasscode)
      case .biometryCurrentSet: .biometryCurrentSet
      case .deviceOwner: .default
      }
    }

    /// The `LAContext` policy whose `canEvaluatePolicy` tells whether the device can verify the user
    /// by this requirement: biometry alone for the current set; biometry or the passcode otherwise
    /// (with no biometry enrolled the passcode serves; with no passcode both fail `passcodeNotSet`).
    var policy: LAPolicy {
      switch self {
      case .biometryCurrentSet: .deviceOwnerAuthenticationWithBiometrics
      case .biometryWithPasscodeFallback, .deviceOwner: .deviceOwnerAuthentication
      }
    }

    /// The flags of a key's `SecAccessControl` (without `.privateKeyUsage`).
    var accessControlFlags: SecAccessControlCreateFlags {
      switch self {
      case .biometryWithPasscodeFallback: [.biometryAny, .or, .devicePasscode]
      case .biometryCurrentSet: .biometryCurrentSet
      case .deviceOwner: .userPresence
      }
    }
  }
#endif
