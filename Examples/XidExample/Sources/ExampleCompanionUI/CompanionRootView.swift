import SwiftUI
import Xid

/// The companion app's one screen: "Continue as …" for each account of the family, or who is signed
/// in, with the two sign-out choices.
@MainActor
public struct CompanionRootView: View {
  @StateObject private var model = CompanionModel()

  /// Creates the view.
  public init() {}

  public var body: some View {
    NavigationStack {
      content
        .padding()
        .navigationTitle("Companion")
        .disabled(model.isBusy)
    }
    .task { await model.start() }
  }

  @ViewBuilder private var content: some View {
    switch model.phase {
    case .loading:
      ProgressView()
    case .choosing(let accounts) where accounts.isEmpty:
      Text("Sign in to the example app first: this app then continues as the same user, with no browser.")
        .multilineTextAlignment(.center)
    case .choosing(let accounts):
      VStack(spacing: 16) {
        ForEach(accounts) { account in
          Button {
            Task { await model.continueAs(account) }
          } label: {
            Text("Continue as \(account.displayName)").frame(maxWidth: .infinity)
          }
          .buttonStyle(.borderedProminent)
        }
      }
    case .signedIn(let session):
      VStack(spacing: 16) {
        Text("Signed in as \(session.subject)")
        Text(session.signedInFromFamily ? "from the example app's sign-in" : "")
          .foregroundStyle(.secondary)
        Button("Sign Out of This App") { Task { await model.signOut(family: false) } }
        Button("Sign Out of All Apps", role: .destructive) { Task { await model.signOut(family: true) } }
      }
    case .unavailable(let text):
      Text(text).multilineTextAlignment(.center)
    }
  }
}
