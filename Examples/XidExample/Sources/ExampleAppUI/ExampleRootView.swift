import SwiftUI
import Xid

/// The app's one window: sign-in, the lock screen or the profile, as the session says, and the
/// Diagnostics screen (the device self-check) from the toolbar.
@MainActor
public struct ExampleRootView: View {
  @StateObject private var model = AccountModel()
  @Environment(\.scenePhase) private var scenePhase

  /// Creates the view.
  public init() {}

  /// The screen for the account's state: sign-in, locked, profile or unavailable.
  public var body: some View {
    NavigationStack {
      content
        .navigationTitle("Xid Example")
        .toolbar {
          // The device self-check, whatever the session's state: it touches no token.
          ToolbarItem(placement: .primaryAction) {
            NavigationLink {
              DiagnosticsView()
            } label: {
              Label("Diagnostics", systemImage: "stethoscope")
            }
          }
        }
    }
    .task { await model.start() }
    .onChange(of: scenePhase) { phase in model.scenePhaseChanged(to: phase) }
    .alert(
      "Something went wrong",
      isPresented: Binding(get: { model.failure != nil }, set: { if !$0 { model.failure = nil } }),
      actions: { Button("OK", role: .cancel) {} },
      message: { Text(model.failure ?? "") })
  }

  @ViewBuilder private var content: some View {
    switch model.phase {
    case .loading:
      ProgressView()
    case .signedOut:
      SignInView(model: model)
    case .locked:
      LockedView(model: model)
    case .signedIn(let session):
      ProfileView(model: model, session: session)
    case .unavailable(let text):
      UnavailableView(model: model, text: text)
    }
  }
}
