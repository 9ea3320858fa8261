import ExampleWidget
import SwiftUI
import WidgetKit

/// The widget extension's one file: the extension links the `ExampleWidget` library.
@main
struct ExampleWidgetBundle: WidgetBundle {
  var body: some Widget {
    AccountWidget()
  }
}
