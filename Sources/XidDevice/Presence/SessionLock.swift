import Foundation

/// The session lock of one process: closed at start, opened by the user (through a
/// ``PresenceAuthorizer``) or by a sign-in, closed again by ``lock()``, by sign-out, or after a time in
/// the background.
///
/// Its state is read synchronously on every token request (a lock around a few fields), so the
/// `getAccessToken()` fast path stays fast. The relock after a time in the background is applied when
/// the state is next read or the app comes back: no timer runs. The time in the background is
/// measured with the configuration's clock's monotonic reading (``XidClock/monotonicNow``), which
/// counts while the device sleeps and does not move when the date is set: setting the device's clock
/// back does not keep the lock open, and setting it forward does not close it early.
package final class SessionLock: Sendable {
  private struct State {
    var lock: SessionLockState = .locked
    /// Bumped by every ``lock()``: an unlock that started before it does not open the lock.
    var generation = 0
    var unlocking: Task<Void, any Error>?
    var scenePhase: XidScenePhase = .active
    /// When the app went to the background, as the clock's monotonic reading.
    var backgroundSince: ContinuousClock.Instant?
    var observers: [Int: AsyncStream<SessionLockState>.Continuation] = [:]
    var nextObserver = 0
  }

  private let authorizer: any PresenceAuthorizer
  private let relockAfter: Duration?
  private let clock: any XidClock
  private let state = LockedValue(State())

  init(authorizer: any PresenceAuthorizer, relockAfter: Duration?, clock: any XidClock) {
    self.authorizer = authorizer
    self.relockAfter = relockAfter
    self.clock = clock
  }

  deinit {
    for continuation in state.get().observers.values { continuation.finish() }
  }

  /// The current state, after applying a relock that fell due in the background.
  package var current: SessionLockState { state.update { relockIfDue(&$0) } }

  /// Whether tokens may be handed out now.
  package var isOpen: Bool { current == .unlocked }

  /// Where the app is; `.background` while it is not visible.
  var scenePhase: XidScenePhase { state.get().scenePhase }

  /// Throws ``XidError/Code/sessionLocked`` unless the lock is open.
  package func requireOpen(for operation: String) throws {
    guard isOpen else {
      throw XidError(
        .sessionLocked,
        "the session lock is closed, so \(operation) is refused; call unlock(localizedReason:) in the app (the user is still signed in)"
      )
    }
  }

  /// Opens the lock once the device can authorize and the user is verified; concurrent callers share
  /// one prompt. Returns at once when the lock is open.
  package func unlock(localizedReason: String) async throws {
    let task = state.update { state -> Task<Void, any Error>? in
      if relockIfDue(&state) == .unlocked { return nil }
      if let unlocking = state.unlocking { return unlocking }
      let generation = state.generation
      let task = Task { try await self.authorize(localizedReason: localizedReason, generation: generation) }
      state.unlocking = task
      Self.move(&state, to: .unlocking)
      return task
    }
    try await task?.value
  }

  private func authorize(localizedReason: String, generation: Int) async throws {
    do {
      try await authorizer.checkCanAuthorize()
      try await authorizer.authorize(localizedReason: localizedReason)
    } catch {
      state.update { state in
        guard state.generation == generation else { return }
        state.unlocking = nil
        if state.lock == .unlocking { Self.move(&state, to: .locked) }
      }
      throw Self.typed(error)
    }
    let opened = state.update { state -> Bool in
      guard state.generation == generation else { return false }
      state.unlocking = nil
      state.backgroundSince = nil
      Self.move(&state, to: .unlocked)
      return true
    }
    guard opened else {
      throw XidError(.cancelled, "the session was locked again while the user was being asked; nothing to do")
    }
  }

  /// Closes the lock and deauthorizes, so that the next unlock asks the user again.
  func lock() async {
    state.update { Self.close(&$0) }
    await authorizer.deauthorize()
  }

  /// Opens the lock without asking: the user has just signed in, in this process.
  func openAfterSignIn() {
    state.update { state in
      state.unlocking = nil
      state.backgroundSince = nil
      Self.move(&state, to: .unlocked)
    }
  }

  /// Records where the app is; closes the lock when it has been in the background long enough.
  func setScenePhase(_ phase: XidScenePhase) {
    let closed = state.update { state -> Bool in
      state.scenePhase = phase
      if phase == .background, state.backgroundSince == nil { state.backgroundSince = clock.monotonicNow }
      let before = state.lock
      relockIfDue(&state, deauthorize: false)
      if phase != .background { state.backgroundSince = nil }
      return before == .unlocked && state.lock == .locked
    }
    if closed { Task { await authorizer.deauthorize() } }
  }

  /// The state now and at every change, until the engine goes away.
  package func states() -> AsyncStream<SessionLockState> {
    AsyncStream(bufferingPolicy: .unbounded) { continuation in
      let id = state.update { state -> Int in
        let current = relockIfDue(&state)
        let id = state.nextObserver
        state.nextObserver += 1
        state.observers[id] = continuation
        continuation.yield(current)
        return id
      }
      continuation.onTermination = { [weak self] _ in
        self?.state.update { _ = $0.observers.removeValue(forKey: id) }
      }
    }
  }

  // MARK: - Transitions (under the state's lock)

  /// Applies a relock that fell due in the background and returns the state.
  @discardableResult
  private func relockIfDue(_ state: inout State, deauthorize: Bool = true) -> SessionLockState {
    guard state.lock != .locked, let since = state.backgroundSince, let relockAfter,
      clock.monotonicNow - since >= relockAfter
    else { return state.lock }
    let wasOpen = state.lock == .unlocked
    Self.close(&state)
    if deauthorize && wasOpen { Task { await authorizer.deauthorize() } }
    return state.lock
  }

  private static func close(_ state: inout State) {
    state.generation += 1
    state.unlocking = nil
    move(&state, to: .locked)
  }

  private static func move(_ state: inout State, to next: SessionLockState) {
    guard state.lock != next else { return }
    state.lock = next
    for continuation in state.observers.values { continuation.yield(next) }
  }

  private static func typed(_ error: any Error) -> any Error {
    if error is XidError || error is CancellationError { return error }
    return XidError(.authenticationFailed, "the presence authorizer failed with \(type(of: error))")
  }
}
