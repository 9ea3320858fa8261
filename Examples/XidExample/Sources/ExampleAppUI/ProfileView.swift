import ExampleShared
import SwiftUI
import Xid

/// The signed-in user, behind the session lock: the ID token's claims, the provider's UserInfo, and
/// the balance from the API (`Xid.shared.send`, as the App Intent does it).
@MainActor
struct ProfileView: View {
  @ObservedObject var model: AccountModel
  let session: XidSession
  @State private var userInfo: UserInfo?
  @State private var balance: Balance?
  @State private var isLoading = false

  var body: some View {
    List {
      Section("Signed in") {
        row("Subject", session.subject)
        row("Issuer", session.issuer)
        row("Scopes", session.scopes.joined(separator: " "))
        if let expiry = session.accessTokenExpiresAt {
          row("Access token until", expiry.formatted(date: .omitted, time: .standard))
        }
      }
      Section("UserInfo") {
        if let userInfo {
          row("Name", userInfo.name ?? "—")
          row("Email", userInfo.email ?? "—")
        } else {
          Text(isLoading ? "Loading…" : "Not loaded")
        }
      }
      Section("Balance") {
        if let balance {
          Text(balance.summary)
        } else {
          Text(isLoading ? "Loading…" : "Not loaded")
        }
      }
      Section {
        Button("Reload") { Task { await load() } }
          .disabled(isLoading)
        Button("Lock") { Task { await model.lock() } }
        Button("Sign Out", role: .destructive) { Task { await model.signOut() } }
          .disabled(model.isBusy)
      }
    }
    .refreshable { await load() }
    .task { await load() }
  }

  private func row(_ label: String, _ value: String) -> some View {
    LabeledContent(label, value: value)
  }

  /// UserInfo and the balance. Xid attaches the access token, refreshing it first when needed; with
  /// the lock closed both throw `sessionLocked`, and the model shows the lock screen.
  private func load() async {
    isLoading = true
    defer { isLoading = false }
    do {
      userInfo = try await Xid.shared.userInfo()
      let response = try await Xid.shared.send(BalanceAPI.request())
      balance = try BalanceAPI.balance(from: response)
    } catch is CancellationError {
      return
    } catch {
      await model.handle(error)
    }
  }
}
