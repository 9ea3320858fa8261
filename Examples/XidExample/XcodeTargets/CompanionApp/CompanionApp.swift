import ExampleCompanionUI
import SwiftUI

/// The companion app target's one file: a second app of the example's family, with its own client ID,
/// that signs in from the example app's session ("Continue as …").
@main
struct CompanionApp: App {
  var body: some Scene {
    WindowGroup {
      CompanionRootView()
    }
  }
}
