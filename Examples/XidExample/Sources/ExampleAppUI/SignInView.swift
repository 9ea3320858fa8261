import SwiftUI

/// Nobody is signed in: one button, which opens the provider's page in an
/// `ASWebAuthenticationSession` (`Xid.shared.signIn()`).
@MainActor
struct SignInView: View {
  @ObservedObject var model: AccountModel

  var body: some View {
    VStack(spacing: 24) {
      Image(systemName: "person.crop.circle.badge.questionmark")
        .font(.system(size: 64))
        .foregroundStyle(.secondary)
      Text("Sign in to see your profile. Shortcuts and the widget use the same session.")
        .multilineTextAlignment(.center)
      Button {
        Task { await model.signIn() }
      } label: {
        Text("Sign In").frame(maxWidth: .infinity)
      }
      .buttonStyle(.borderedProminent)
      .disabled(model.isBusy)
    }
    .padding()
  }
}
