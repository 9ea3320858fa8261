/// Whether the session lock lets Xid hand out tokens, as ``SessionEngine/lockStates()`` reports it.
public enum SessionLockState: String, Sendable, Hashable, CustomStringConvertible {
  /// Closed: no access token, no claim, no authorized request until ``SessionEngine/unlock(localizedReason:)``.
  case locked
  /// The user is being asked (Face ID, Touch ID, Optic ID or the passcode).
  case unlocking
  /// Open: Xid works as without a lock. Also the state when no lock is configured.
  case unlocked

  /// The state's name.
  public var description: String { rawValue }
}

/// Where the app is, as SwiftUI's `ScenePhase` says it: the app passes it to
/// ``SessionEngine/setScenePhase(_:)`` so that the session lock can close after a time in the
/// background, and so that no prompt is attempted there. Xid never asks `UIApplication` itself, so the
/// same code builds for app extensions.
public enum XidScenePhase: String, Sendable, Hashable, CustomStringConvertible {
  /// In the foreground and receiving events.
  case active
  /// In the foreground but not receiving events (the app switcher, an incoming call, a system prompt).
  case inactive
  /// Not visible.
  case background

  /// The phase's name.
  public var description: String { rawValue }
}
