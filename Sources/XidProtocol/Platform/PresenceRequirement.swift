/// How the user proves they are present: what LocalAuthentication asks for before a session lock
/// opens, a sealed refresh token is used, or a device credential signs.
///
/// | Requirement | `LARight` | A key's `SecAccessControl` |
/// |---|---|---|
/// | ``biometryWithPasscodeFallback`` | `.biometry(fallback: .devicePasscode)` | `[.biometryAny, .or, .devicePasscode]` |
/// | ``biometryCurrentSet`` | `.biometryCurrentSet` | `.biometryCurrentSet` |
/// | ``deviceOwner`` | `.default` | `.userPresence` |
///
/// Keys also get `.privateKeyUsage` when they live in the Secure Enclave.
public enum PresenceRequirement: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// Face ID, Touch ID or Optic ID, with the device passcode when biometry is not available, not
  /// enrolled, locked out or fails. Works on every device with a passcode, and survives changes to the
  /// enrolled faces and fingers.
  case biometryWithPasscodeFallback
  /// Only the faces or fingers enrolled now, never the passcode. Fails with
  /// ``XidError/Code/biometryNotEnrolled`` when none are enrolled. Enrolling or removing one
  /// invalidates keys made with it (``XidError/Code/presenceKeyInvalidated``): someone who learns the
  /// passcode cannot add their own face and use the secret.
  case biometryCurrentSet
  /// The device owner: biometry or the passcode, as the lock screen accepts them.
  case deviceOwner

  /// The requirement's name.
  public var description: String { rawValue }
}
