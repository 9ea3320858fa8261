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
}
