import Foundation
import WidgetKit
import Xid

/// Whether this process follows `Xid.shared.sessionEvents` already (one loop per process).
@MainActor private var followingSessionEvents = false

extension AccountModel {
  /// Follows the session's changes in every process of the app group (the App Intents extension,
  /// the widget, another app of the family): on each event the app reads the session again and asks
  /// WidgetKit to rebuild the widget's timelines. A widget cannot hold a stream; it reads the session
  /// each time it builds a timeline (`AccountTimelineProvider`), so a reload is all it needs.
  ///
  /// Started once from ``start()``; runs for the life of the process.
  func followSessionEvents() {
    guard !followingSessionEvents else { return }
    followingSessionEvents = true
    Task { @MainActor in
      // Events carry no data: read the session again, which is the truth.
      for await _ in Xid.shared.sessionEvents {
        await reload()
        WidgetCenter.shared.reloadAllTimelines()
      }
      followingSessionEvents = false
    }
  }
}
