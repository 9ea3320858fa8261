import SwiftUI
import WidgetKit

/// The widget: the signed-in user and their balance, or what to do first (sign in, unlock the device,
/// open the app to unlock the account).
public struct AccountWidget: Widget {
  /// The widget's kind, for `WidgetCenter.shared.reloadTimelines(ofKind:)`.
  public static let kind = "XidExampleAccount"

  /// Creates the widget.
  public init() {}

  /// One static configuration, fed by ``AccountTimelineProvider``.
  public var body: some WidgetConfiguration {
    StaticConfiguration(kind: Self.kind, provider: AccountTimelineProvider()) { entry in
      AccountWidgetView(entry: entry)
    }
    .configurationDisplayName("Account")
    .description("Your balance, or what to do to see it.")
    .supportedFamilies([.systemSmall, .systemMedium, .accessoryRectangular])
  }
}
