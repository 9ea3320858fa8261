import ExampleShared
import Foundation
import SwiftUI
import Xid

/// The companion app's state: the family's accounts to continue as, or the session it signed in
/// from one of them.
@MainActor
public final class CompanionModel: ObservableObject {
  /// What the companion shows.
  public enum Phase: Equatable {
    /// Configuring and reading.
    case loading
    /// Not signed in: the family's accounts ("Continue as …"), maybe none.
    case choosing([FamilyAccount])
    /// Signed in from the family.
    case signedIn(XidSession)
    /// Something to tell the user.
    case unavailable(String)
  }

  /// What the companion shows.
  @Published public private(set) var phase = Phase.loading
  /// Whether a sign-in or sign-out is under way.
  @Published public private(set) var isBusy = false

  /// Creates the model; ``start()`` reads the state.
  public init() {}

  /// Configures `Xid.shared` for the companion, then follows the session's events: another app's
  /// family sign-out ends this session, and the screen follows.
  public func start() async {
    do {
      try ExampleFamily.configureCompanion()
    } catch {
      phase = .unavailable("Xid is not configured: \(error)")
      return
    }
    await reload()
    for await _ in Xid.shared.sessionEvents { await reload() }
  }

  /// Reads this app's session, else the family's accounts.
  public func reload() async {
    do {
      if let session = try await Xid.shared.getSession() {
        phase = .signedIn(session)
      } else {
        phase = .choosing(try await Xid.shared.familyAccounts())
      }
    } catch let error as XidError where error.code == .sessionExpired {
      // The family signed out in another app: this session is over too.
      phase = .choosing((try? await Xid.shared.familyAccounts()) ?? [])
    } catch {
      phase = .unavailable("\(error)")
    }
  }

  /// Signs in as `account` from the family's session: a token exchange, no browser.
  public func continueAs(_ account: FamilyAccount) async {
    await perform { _ = try await Xid.shared.signIn(from: account) }
  }

  /// Signs out of the companion alone, or of the whole family.
  public func signOut(family: Bool) async {
    await perform { _ = try await Xid.shared.signOut(scope: family ? .family : .thisApp) }
  }

  private func perform(_ action: () async throws -> Void) async {
    isBusy = true
    defer { isBusy = false }
    do {
      try await action()
    } catch {
      phase = .unavailable("\(error)")
      return
    }
    await reload()
  }
}
