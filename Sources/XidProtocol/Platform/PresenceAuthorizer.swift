/// Asks the user to prove they are present, as LocalAuthentication's `LARight` does: the session lock
/// uses one to open.
///
/// Xid supplies `LocalAuthenticationAuthorizer` (an `LARight`) on Apple platforms; tests and programs
/// elsewhere use `FakePresenceAuthorizer` of `XidTesting`, or their own.
///
/// Implementations throw ``XidError`` with the presence codes (``XidError/Code/authenticationCancelled``,
/// ``XidError/Code/biometryLockout``, …), so that callers can tell the cases apart.
public protocol PresenceAuthorizer: Sendable {
  /// Returns when the device can ask the user at all, without asking; throws why not
  /// (``XidError/Code/biometryNotEnrolled``, ``XidError/Code/passcodeNotSet``,
  /// ``XidError/Code/biometryUnavailable``, ``XidError/Code/biometryLockout``).
  func checkCanAuthorize() async throws
  /// Asks the user, showing `localizedReason`, and returns once they are verified.
  func authorize(localizedReason: String) async throws
  /// Forgets a previous authorization, so that the next one asks the user again.
  func deauthorize() async
  /// Returns when the device can verify the user by `requirement` (which may not be the one this
  /// authorizer opens with), without asking; throws why not. With no biometry enrolled,
  /// ``PresenceRequirement/biometryWithPasscodeFallback`` and ``PresenceRequirement/deviceOwner``
  /// fall back to the passcode while ``PresenceRequirement/biometryCurrentSet`` fails with
  /// ``XidError/Code/biometryNotEnrolled``; with no passcode, all fail with
  /// ``XidError/Code/passcodeNotSet``. The default implementation calls ``checkCanAuthorize()``.
  func checkCanAuthorize(requirement: PresenceRequirement) async throws
  /// An opaque value that changes whenever a face or finger is enrolled or removed
  /// (`LAContext.evaluatedPolicyDomainState` on Apple platforms), read without asking the user; `nil`
  /// when biometry is not available or not enrolled, or the authorizer cannot tell (the default).
  func biometryDomainState() -> [UInt8]?
}

extension PresenceAuthorizer {
  /// Calls ``checkCanAuthorize()``: an authorizer that knows nothing of requirements checks its own.
  public func checkCanAuthorize(requirement: PresenceRequirement) async throws {
    try await checkCanAuthorize()
  }

  /// `nil`: the authorizer cannot tell when the enrolled biometry changes.
  public func biometryDomainState() -> [UInt8]? { nil }
}
