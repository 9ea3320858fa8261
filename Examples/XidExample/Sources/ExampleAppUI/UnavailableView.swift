import SwiftUI

/// The session cannot be read now (the device has not been unlocked since it started, or the app is
/// not configured): what to do, and a button to try again.
@MainActor
struct UnavailableView: View {
  @ObservedObject var model: AccountModel
  let text: String

  var body: some View {
    VStack(spacing: 24) {
      Image(systemName: "exclamationmark.triangle")
        .font(.system(size: 64))
        .foregroundStyle(.secondary)
      Text(text)
        .multilineTextAlignment(.center)
      Button("Try Again") {
        Task { await model.reload() }
      }
    }
    .padding()
  }
}
