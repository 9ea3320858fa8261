import Foundation
import XidCore

/// A stand-in for Face ID, Touch ID, Optic ID and the passcode in tests: a ``/Xid/PresenceAuthorizer``
/// (what an `LARight` does for Xid) that approves, denies, cancels, locks out or has its keys
/// invalidated on command, and counts what it was asked.
///
/// Give it to ``/Xid/PresenceOptions/authorizer`` for the session lock, and to
/// ``/Xid/SoftwarePresenceKeyStore`` or ``/Xid/SoftwareDeviceCredentialStore`` for keys that need the user:
///
/// ```swift
/// let user = FakePresenceAuthorizer()
/// var configuration = XidConfiguration(…)
/// configuration.presence = PresenceOptions(sessionLock: .deviceOwner, authorizer: user)
/// configuration.parts.storage = InMemoryTokenStorage()
/// let xid = try Xid(configuration: configuration)
///
/// user.deny()
/// await #expect(throws: XidError.self) { try await xid.unlock(localizedReason: "Unlock") }
/// user.approve()
/// try await xid.unlock(localizedReason: "Unlock")
/// #expect(user.prompts == ["Unlock", "Unlock"])
/// ```
///
/// Every failure is the ``/Xid/XidError`` the real authorizer reports for the same situation, so the code
/// under test sees what it would see on a device.
public final class FakePresenceAuthorizer: PresenceAuthorizer, Sendable {
  /// What the user does when asked.
  public enum Response: String, Sendable, Hashable {
    /// The user is verified.
    case approve
    /// The user is not recognised (``/Xid/XidError/Code/authenticationFailed``).
    case deny
    /// The user cancels the prompt (``/Xid/XidError/Code/authenticationCancelled``).
    case cancel
    /// Biometry is locked after too many attempts (``/Xid/XidError/Code/biometryLockout``); the device
    /// cannot authorize until the passcode unlocks it.
    case lockOut
    /// The enrolled biometry changed, so keys and rights made before no longer work
    /// (``/Xid/XidError/Code/presenceKeyInvalidated``).
    case invalidate
    /// No prompt can be shown (``/Xid/XidError/Code/userPresenceRequired``), as in the background.
    case notInteractive
  }

  /// How the user was verified, when a prompt succeeded.
  public enum Verification: String, Sendable, Hashable {
    /// With a face or a finger.
    case biometry
    /// With the device passcode: the requirement allows it and no biometry is enrolled.
    case passcode
  }

  private struct State {
    var response: Response
    var requirement: PresenceRequirement
    var prompts: [String] = []
    var verifications: [Verification] = []
    var checks = 0
    var deauthorizations = 0
    var authorized = false
    var biometryEnrolled = true
    var passcodeSet = true
    /// Counts the changes to the enrolled biometry: the fake's domain state.
    var enrollment = 0
  }

  private let state: LockedValue<State>

  /// Creates an authorizer that answers with `response` until told otherwise, and opens with
  /// `requirement` (as an `LARight` made with it), on a device with a passcode and enrolled biometry.
  public init(_ response: Response = .approve, requirement: PresenceRequirement = .biometryWithPasscodeFallback) {
    state = LockedValue(State(response: response, requirement: requirement))
  }

  /// Enrolls biometry on the fake device, or removes every face and finger (`false`). Either is a
  /// change of the enrolled biometry: ``/Xid/PresenceRequirement/biometryCurrentSet`` keys made
  /// before stop working. With none enrolled, ``/Xid/PresenceRequirement/biometryCurrentSet`` fails
  /// with ``/Xid/XidError/Code/biometryNotEnrolled`` and the other requirements use the passcode.
  public func setBiometryEnrolled(_ enrolled: Bool) {
    state.update {
      if $0.biometryEnrolled != enrolled { $0.enrollment += 1 }
      $0.biometryEnrolled = enrolled
    }
  }

  /// Enrolls another face or finger: ``/Xid/PresenceRequirement/biometryCurrentSet`` keys made before
  /// stop working, as on a device (the key refuses the user; Xid sees the change and reports
  /// ``/Xid/XidError/Code/presenceKeyInvalidated``).
  public func changeEnrolledBiometry() {
    state.update {
      $0.biometryEnrolled = true
      $0.enrollment += 1
    }
  }

  /// Sets a passcode on the fake device, or removes it (`false`): without one, every requirement
  /// fails with ``/Xid/XidError/Code/passcodeNotSet``.
  public func setPasscodeSet(_ isSet: Bool) { state.update { $0.passcodeSet = isSet } }

  /// Verifies the user from now on.
  public func approve() { respond(.approve) }
  /// Does not recognise the user from now on.
  public func deny() { respond(.deny) }
  /// Has the user cancel from now on.
  public func cancel() { respond(.cancel) }
  /// Locks biometry out from now on.
  public func lockOut() { respond(.lockOut) }
  /// Changes the enrolled biometry: keys and rights made before stop working, from now on.
  public func invalidate() { respond(.invalidate) }
  /// Makes prompts impossible from now on, as in the background.
  public func refuseInteraction() { respond(.notInteractive) }

  /// Sets what the user does from now on.
  public func respond(_ response: Response) { state.update { $0.response = response } }

  /// What the user does now.
  public var response: Response { state.get().response }
  /// The reasons of every prompt shown so far, in order.
  public var prompts: [String] { state.get().prompts }
  /// How many times `checkCanAuthorize()` was called.
  public var checks: Int { state.get().checks }
  /// How many times `deauthorize()` was called.
  public var deauthorizations: Int { state.get().deauthorizations }
  /// Whether the last prompt succeeded and no deauthorization followed.
  public var isAuthorized: Bool { state.get().authorized }
  /// How the user was verified at each successful prompt, in order.
  public var verifications: [Verification] { state.get().verifications }
  /// The requirement the authorizer opens with.
  public var requirement: PresenceRequirement { state.get().requirement }
  /// Whether a face or finger is enrolled.
  public var isBiometryEnrolled: Bool { state.get().biometryEnrolled }
  /// Whether the device has a passcode.
  public var isPasscodeSet: Bool { state.get().passcodeSet }

  public func checkCanAuthorize() async throws {
    try await checkCanAuthorize(requirement: requirement)
  }

  /// Returns when the fake device can verify the user by `requirement`: it fails as a device does
  /// with no passcode (``/Xid/XidError/Code/passcodeNotSet``, for every requirement), with no biometry
  /// enrolled (``/Xid/XidError/Code/biometryNotEnrolled``, for
  /// ``/Xid/PresenceRequirement/biometryCurrentSet`` only), and when locked out or invalidated.
  public func checkCanAuthorize(requirement: PresenceRequirement) async throws {
    let (response, unmet) = state.update { state -> (Response, XidError?) in
      state.checks += 1
      return (state.response, Self.unmet(requirement, state))
    }
    if let unmet { throw unmet }
    switch response {
    case .lockOut, .invalidate: throw Self.error(for: response)
    case .approve, .deny, .cancel, .notInteractive: return
    }
  }

  public func authorize(localizedReason: String) async throws {
    let outcome = state.update { state -> Result<Void, XidError> in
      // A requirement the device cannot meet fails before any prompt, as `LARight.authorize` does.
      if let unmet = Self.unmet(state.requirement, state) { return .failure(unmet) }
      state.prompts.append(localizedReason)
      state.authorized = state.response == .approve
      guard state.response == .approve else { return .failure(Self.error(for: state.response)) }
      // Biometry first when enrolled; otherwise the requirement allows the passcode (see `unmet`).
      state.verifications.append(state.biometryEnrolled ? .biometry : .passcode)
      return .success(())
    }
    try outcome.get()
  }

  /// The fake's state of the enrolled biometry: a value that changes at every enrollment change;
  /// `nil` with none enrolled.
  public func biometryDomainState() -> [UInt8]? {
    let state = state.get()
    guard state.biometryEnrolled else { return nil }
    return Array("fake-enrollment-\(state.enrollment)".utf8)
  }

  /// Why the device cannot verify the user by `requirement` now, if it cannot.
  private static func unmet(_ requirement: PresenceRequirement, _ state: State) -> XidError? {
    guard state.passcodeSet else {
      return XidError(
        .passcodeNotSet, "the fake device has no passcode (as LAError.passcodeNotSet); ask the user to set one")
    }
    if requirement == .biometryCurrentSet && !state.biometryEnrolled {
      return XidError(
        .biometryNotEnrolled,
        "no face or finger is enrolled on the fake device (as LAError.biometryNotEnrolled); enroll one, or use a requirement with a passcode fallback"
      )
    }
    return nil
  }

  public func deauthorize() async {
    state.update {
      $0.deauthorizations += 1
      $0.authorized = false
    }
  }

  private static func error(for response: Response) -> XidError {
    switch response {
    case .approve: XidError(.invalidConfiguration, "not an error")
    case .deny: XidError(.authenticationFailed, "the fake user was not recognised; nothing changed, let them try again")
    case .cancel: XidError(.authenticationCancelled, "the fake user cancelled the prompt; nothing changed")
    case .lockOut:
      XidError(.biometryLockout, "the fake device's biometry is locked out; the passcode unlocks it")
    case .invalidate:
      XidError(
        .presenceKeyInvalidated, "the fake device's enrolled biometry changed; keys made before no longer work")
    case .notInteractive:
      XidError(.userPresenceRequired, "the fake device cannot show a prompt here; retry in the foreground")
    }
  }
}
