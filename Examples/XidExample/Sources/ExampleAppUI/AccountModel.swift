import ExampleShared
import Foundation
import SwiftUI
import WidgetKit
import Xid

/// The app's view of the shared session: signed out, locked, or signed in with a profile, and the
/// actions the screens offer. A plain `ObservableObject` on the main actor (iOS 16 has no
/// `@Observable`).
@MainActor
public final class AccountModel: ObservableObject {
  /// What the app shows.
  public enum Phase: Equatable {
    /// Configuring and reading the session.
    case loading
    /// Nobody is signed in: the sign-in screen.
    case signedOut
    /// Someone is signed in, but the session lock is closed: the lock screen.
    case locked
    /// Signed in and unlocked: the profile.
    case signedIn(XidSession)
    /// The session cannot be read now; the text says what to do.
    case unavailable(String)
  }

  /// What the app shows.
  @Published public private(set) var phase = Phase.loading
  /// The session lock's state, as Xid reports it.
  @Published public private(set) var lockState = SessionLockState.locked
  /// Whether a sign-in, unlock or sign-out is under way (the buttons are disabled meanwhile).
  @Published public private(set) var isBusy = false
  /// The last failure, for an alert; `nil` when there is nothing to show.
  @Published public var failure: String?

  private var observingLock = false

  /// Creates the model; ``start()`` configures Xid and reads the session.
  public init() {}

  /// Configures `Xid.shared` (once per process), follows the session lock and reads the session. Call
  /// it from the root view's `.task`.
  public func start() async {
    do {
      try ExampleAccount.configure()
    } catch {
      phase = .unavailable("Xid is not configured: \(Self.text(of: error))")
      return
    }
    followSessionEvents()
    guard !observingLock, let states = try? Xid.shared.lockStates() else {
      await reload()
      return
    }
    // The stream starts with the current state, so the first pass also reads the session.
    observingLock = true
    defer { observingLock = false }
    for await state in states {
      lockState = state
      if state != .unlocking { await reload() }
    }
  }

  /// Reads the session again: nobody, locked, or the user's.
  public func reload() async {
    do {
      guard let session = try await Xid.shared.getSession() else {
        phase = .signedOut
        return
      }
      phase = session.isLocked ? .locked : .signedIn(session)
    } catch let error as XidError where error.code == .storageLocked {
      // Launched (or prewarmed) before the first unlock since the device started: still signed in.
      phase = .unavailable("Unlock your device to see your account.")
    } catch {
      phase = .unavailable(Self.text(of: error))
    }
  }

  /// Signs in with the provider's page in an `ASWebAuthenticationSession`; a sign-in opens the session
  /// lock without a prompt. Closing the page is not a failure.
  public func signIn() async {
    await perform {
      try await Xid.shared.signIn()
      WidgetCenter.shared.reloadAllTimelines()
    }
  }

  /// Opens the session lock with Face ID, Touch ID or the passcode (an `LARight`). Cancelling the prompt
  /// is not a failure.
  public func unlock() async {
    await perform {
      try await Xid.shared.unlock(localizedReason: "Unlock your account to see your profile.")
    }
  }

  /// Closes the session lock now.
  public func lock() async {
    await Xid.shared.lock()
  }

  /// Signs out: the session is deleted here first, the refresh token revoked, and the provider's
  /// end-session page shown, which returns to `com.example.app:/signed-out`.
  public func signOut() async {
    await perform {
      defer { WidgetCenter.shared.reloadAllTimelines() }
      try await Xid.shared.signOut(callEndSession: true)
    }
    await reload()
  }

  /// Tells Xid where the app is, so that the lock closes after a minute in the background.
  public func scenePhaseChanged(to phase: ScenePhase) {
    switch phase {
    case .active: Xid.shared.setScenePhase(.active)
    case .inactive: Xid.shared.setScenePhase(.inactive)
    case .background: Xid.shared.setScenePhase(.background)
    @unknown default: Xid.shared.setScenePhase(.background)
    }
    if phase == .active { Task { await reload() } }
  }

  /// Handles an error of a profile call: a closed lock or an ended session changes the screen, the
  /// rest is shown.
  func handle(_ error: any Error) async {
    if let error = error as? XidError {
      switch error.code {
      case .sessionLocked, .signInRequired, .sessionExpired, .refreshRefused:
        await reload()
        return
      default: break
      }
    }
    failure = Self.text(of: error)
  }

  private func perform(_ action: () async throws -> Void) async {
    isBusy = true
    defer { isBusy = false }
    do {
      try await action()
    } catch let error as XidError where Self.isUserCancellation(error) {
      return
    } catch {
      failure = Self.text(of: error)
    }
    await reload()
  }

  private static func isUserCancellation(_ error: XidError) -> Bool {
    [.userCancelled, .cancelled, .authenticationCancelled].contains(error.code)
  }

  /// A failure as text: an `XidError`'s code and reason (never a token), or the error's description.
  static func text(of error: any Error) -> String {
    if let error = error as? XidError { return "\(error.reason) (\(error.code))" }
    if let error = error as? BalanceError { return String(localized: error.localizedStringResource) }
    return error.localizedDescription
  }
}
