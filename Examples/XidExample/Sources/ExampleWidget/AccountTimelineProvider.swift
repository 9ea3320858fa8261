import ExampleShared
import Foundation
import WidgetKit

/// The widget's timeline: one entry from the shared session, read again every 15 minutes and whenever
/// the app signs in or out (`WidgetCenter.shared.reloadAllTimelines()`). When the app's Diagnostics
/// screen asked it to, it first runs the extension's checks (`ExtensionDiagnostics`).
public struct AccountTimelineProvider: TimelineProvider {
  /// How long an entry stands before WidgetKit asks again.
  static let refreshInterval: TimeInterval = 15 * 60

  /// Creates the provider.
  public init() {}

  public func placeholder(in context: Context) -> AccountEntry { .sample }

  public func getSnapshot(in context: Context, completion: @escaping (AccountEntry) -> Void) {
    if context.isPreview {
      completion(.sample)
      return
    }
    // The SDK's completion handlers are not @Sendable; WidgetKit accepts them from any thread.
    nonisolated(unsafe) let completion = completion
    Task { completion(await AccountEntry.current()) }
  }

  public func getTimeline(in context: Context, completion: @escaping (Timeline<AccountEntry>) -> Void) {
    nonisolated(unsafe) let completion = completion
    Task {
      // The Diagnostics screen's checks 4 and 5, when the app asked since the widget last answered.
      await ExtensionDiagnostics.answerIfAsked(in: .widget)
      let entry = await AccountEntry.current()
      completion(Timeline(entries: [entry], policy: .after(entry.date.addingTimeInterval(Self.refreshInterval))))
    }
  }
}
