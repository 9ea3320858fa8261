import XidCore

extension Xid {
  // MARK: - Session lock (XidConfiguration.presence)

  /// The session lock's state now; ``SessionLockState/unlocked`` when no lock is configured (or Xid is
  /// not configured yet).
  public var lockState: SessionLockState { (try? engine())?.lockState ?? .unlocked }

  /// The session lock's state now and at every change, for a lock screen:
  ///
  /// ```swift
  /// .task {
  ///   guard let states = try? Xid.shared.lockStates() else { return }
  ///   for await state in states { showsLockScreen = state != .unlocked }
  /// }
  /// ```
  ///
  /// The sequence ends when ``configure(options:)`` or ``setTokenStorage(_:)`` replaces the session
  /// (the new one starts locked); subscribe again then.
  ///
  /// - Throws: ``XidError/Code/notConfigured`` or ``XidError/Code/invalidConfiguration``.
  public func lockStates() throws -> AsyncStream<SessionLockState> {
    try engine().lockStates()
  }

  /// Opens the session lock: checks that the device can ask the user, then asks them, showing
  /// `localizedReason`. See ``SessionEngine/unlock(localizedReason:)``.
  public func unlock(localizedReason: String) async throws {
    try await engine().unlock(localizedReason: localizedReason)
  }

  /// Closes the session lock and deauthorizes, so that the next unlock asks the user.
  public func lock() async {
    guard let engine = try? engine() else { return }
    await engine.lock()
  }

  /// Tells Xid where the app is, from SwiftUI's `scenePhase`, so that the lock closes after
  /// ``PresenceOptions/relockAfterBackground`` in the background and no prompt is attempted there:
  ///
  /// ```swift
  /// @Environment(\.scenePhase) private var scenePhase
  /// …
  /// .onChange(of: scenePhase) { _, phase in
  ///   switch phase {
  ///   case .active: Xid.shared.setScenePhase(.active)
  ///   case .inactive: Xid.shared.setScenePhase(.inactive)
  ///   default: Xid.shared.setScenePhase(.background)
  ///   }
  /// }
  /// ```
  ///
  /// Xid never reads `UIApplication.shared`, so the same code builds in app extensions.
  public func setScenePhase(_ phase: XidScenePhase) {
    (try? engine())?.setScenePhase(phase)
  }
}
