import SwiftUI
import WidgetKit

/// One entry on screen. Tapping the widget opens the app, where the user signs in or unlocks.
@MainActor
struct AccountWidgetView: View {
  let entry: AccountEntry

  var body: some View {
    VStack(alignment: .leading, spacing: 6) {
      Label(title, systemImage: symbol)
        .font(.headline)
        .lineLimit(1)
      Text(detail)
        .font(.subheadline)
        .foregroundStyle(.secondary)
        .lineLimit(3)
    }
    .frame(maxWidth: .infinity, maxHeight: .infinity, alignment: .topLeading)
    .modifier(WidgetBackground())
  }

  private var title: String {
    switch entry.status {
    case .signedIn(let name, _): name
    case .signInRequired: "Signed out"
    case .unlockDevice: "Locked"
    case .openAppToUnlock: "Account locked"
    case .unavailable: "Unavailable"
    }
  }

  private var detail: String {
    switch entry.status {
    case .signedIn(_, let balance?): balance
    case .signedIn(_, nil): "Balance unavailable right now."
    case .signInRequired: "Open the app to sign in."
    case .unlockDevice: "Unlock your iPhone to see your balance."
    case .openAppToUnlock: "Open the app to unlock your account."
    case .unavailable(let text): text
    }
  }

  private var symbol: String {
    switch entry.status {
    case .signedIn: "person.crop.circle.fill"
    case .signInRequired: "person.crop.circle.badge.questionmark"
    case .unlockDevice, .openAppToUnlock: "lock.fill"
    case .unavailable: "exclamationmark.triangle"
    }
  }
}

/// iOS 17 wants a container background; iOS 16 has none.
private struct WidgetBackground: ViewModifier {
  func body(content: Content) -> some View {
    if #available(iOS 17.0, *) {
      content.containerBackground(.fill.tertiary, for: .widget)
    } else {
      content.padding()
    }
  }
}
