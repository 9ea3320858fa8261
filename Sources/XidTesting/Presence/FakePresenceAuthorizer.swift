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
/// let xid = try Xid(configuration: configuration, storage: InMemoryTokenStorage())
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

  private struct State {
    var response: Response
    var prompts: [String] = []
    var checks = 0
    var deauthorizations = 0
    var authorized = false
  }

  private let state: LockedValue<State>

  /// Creates an authorizer that answers with `response` until told otherwise.
  public init(_ response: Response = .approve) { state = LockedValue(State(response: response)) }

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

  public func checkCanAuthorize() async throws {
    let response = state.update { state -> Response in
      state.checks += 1
      return state.response
    }
    switch response {
    case .lockOut, .invalidate: throw Self.error(for: response)
    case .approve, .deny, .cancel, .notInteractive: return
    }
  }

  public func authorize(localizedReason: String) async throws {
    let response = state.update { state -> Response in
      state.prompts.append(localizedReason)
      state.authorized = state.response == .approve
      return state.response
    }
    if response != .approve { throw Self.error(for: response) }
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
