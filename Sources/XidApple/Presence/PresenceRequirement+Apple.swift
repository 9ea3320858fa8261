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
