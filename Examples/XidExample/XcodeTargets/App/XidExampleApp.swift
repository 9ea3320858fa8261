import ExampleAppUI
import SwiftUI

/// The app target's one file: the app links the `ExampleAppUI` library, which configures `Xid.shared`
/// from this target's Info.plist when the window appears.
@main
struct XidExampleApp: App {
  var body: some Scene {
    WindowGroup {
      ExampleRootView()
    }
  }
}
