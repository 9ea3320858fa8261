import ExampleShared
import Foundation
import WidgetKit
import Xid
import XidAppIntents

/// What the widget shows at one moment: the shared session's user and balance, or what the user must
/// do first.
public struct AccountEntry: TimelineEntry, Sendable {
  /// What the session allows now.
  public enum Status: Sendable, Hashable {
    /// Signed in: who, and the balance when the API answered.
    case signedIn(name: String, balance: String?)
    /// Nobody is signed in, or the provider ended the session: sign in in the app.
    case signInRequired
    /// The device has not been unlocked since it started, so the keychain cannot be read: unlock it.
    case unlockDevice
    /// The session needs the user in the app: the lock is closed, or a refresh needs Face ID, Touch ID
    /// or the passcode. The user is still signed in.
    case openAppToUnlock
    /// The network or the provider failed for now, or the target is misconfigured; the text says
    /// which.
    case unavailable(String)
  }

  /// When WidgetKit shows this entry.
  public let date: Date
  /// What the session allows now.
  public let status: Status

  /// Creates an entry.
  public init(date: Date, status: Status) {
    self.date = date
    self.status = status
  }

  /// The gallery's sample.
  public static let sample = AccountEntry(date: Date(), status: .signedIn(name: "Alice", balance: "€ 42.00"))

  /// Reads the shared session and asks the API for the balance, in the widget's process. Never signs
  /// anyone out: every failure becomes a status.
  public static func current(at date: Date = Date()) async -> AccountEntry {
    do {
      try ExampleAccount.configure()
      guard let session = try await Xid.shared.getSession() else {
        return AccountEntry(date: date, status: .signInRequired)
      }
      // Only a process with a session lock of its own sees it closed; the widget configures none.
      if session.isLocked { return AccountEntry(date: date, status: .openAppToUnlock) }
      let name = session.claims["name"]?.stringValue ?? session.subject
      do {
        let balance = try BalanceAPI.balance(from: try await Xid.shared.send(BalanceAPI.request()))
        return AccountEntry(date: date, status: .signedIn(name: name, balance: balance.amount ?? balance.message))
      } catch let error as XidError where XidIntentError(error).reason == .temporarilyUnavailable {
        return AccountEntry(date: date, status: .signedIn(name: name, balance: nil))
      } catch is BalanceError {
        return AccountEntry(date: date, status: .signedIn(name: name, balance: nil))
      }
    } catch let error as XidError {
      return AccountEntry(date: date, status: status(for: error))
    } catch {
      return AccountEntry(date: date, status: .unavailable("Open the app, then try again."))
    }
  }

  /// What `error` asks of the user, by the same classes as App Intents' dialogs.
  static func status(for error: XidError) -> Status {
    switch XidIntentError(error).reason {
    case .signInRequired: .signInRequired
    case .deviceLocked: .unlockDevice
    case .sessionLocked, .userPresenceRequired: .openAppToUnlock
    case .stepUpRequired: .unavailable("Open the app to sign in again.")
    case .temporarilyUnavailable: .unavailable("Can't connect right now.")
    case .accountUnavailable: .unavailable("Open the app to check your account.")
    }
  }
}
