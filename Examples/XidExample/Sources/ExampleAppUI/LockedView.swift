import SwiftUI

/// Someone is signed in but the session lock is closed: Xid hands out no token, claim or request
/// until the user unlocks with Face ID, Touch ID or the passcode. Signing out needs no unlock.
@MainActor
struct LockedView: View {
  @ObservedObject var model: AccountModel

  var body: some View {
    VStack(spacing: 24) {
      Image(systemName: "lock.fill")
        .font(.system(size: 64))
        .foregroundStyle(.secondary)
      Text("Your account is locked.")
        .font(.headline)
      Button {
        Task { await model.unlock() }
      } label: {
        Text("Unlock").frame(maxWidth: .infinity)
      }
      .buttonStyle(.borderedProminent)
      .disabled(model.isBusy || model.lockState == .unlocking)
      Button("Sign Out", role: .destructive) {
        Task { await model.signOut() }
      }
      .disabled(model.isBusy)
    }
    .padding()
  }
}
