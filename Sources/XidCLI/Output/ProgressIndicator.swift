import Foundation
import Xid

/// Shows that the tool is waiting (for the browser, or for a device code to be approved): a spinner
/// with a countdown on a terminal, redrawn in place on standard error; otherwise a plain line when
/// the wait starts and one a minute, so logs stay readable.
final class ProgressIndicator: Sendable {
  private static let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

  private let console: Console
  private let message: String
  private let deadline: Date?
  private let task = LockedValue<Task<Void, Never>?>(nil)

  /// Prepares an indicator showing `message`, counting down to `deadline` when there is one.
  init(console: Console, message: String, deadline: Date?) {
    self.console = console
    self.message = message
    self.deadline = deadline
  }

  /// Starts showing progress; a second call does nothing.
  func start() {
    let console = console
    let message = message
    let deadline = deadline
    task.update { task in
      guard task == nil else { return }
      task = Task {
        if console.stderrIsTerminal {
          await Self.animate(console: console, message: message, deadline: deadline)
        } else {
          await Self.report(console: console, message: message, deadline: deadline)
        }
      }
    }
  }

  /// Stops and, on a terminal, clears the line. Safe to call more than once, or without ``start()``.
  func stop() {
    let running = task.update { task -> Task<Void, Never>? in
      defer { task = nil }
      return task
    }
    guard let running else { return }
    running.cancel()
    if console.stderrIsTerminal { console.redrawLine() }
  }

  private static func animate(console: Console, message: String, deadline: Date?) async {
    var frame = 0
    while !Task.isCancelled {
      let left = deadline.map { " (\(TimeText.countdown($0.timeIntervalSinceNow)) left)" } ?? ""
      console.redrawLine("\(frames[frame % frames.count]) \(message)\(left)")
      frame += 1
      try? await Task.sleep(for: .milliseconds(100))
    }
  }

  private static func report(console: Console, message: String, deadline: Date?) async {
    var minutes = 0
    while !Task.isCancelled {
      if minutes == 0 {
        let left = deadline.map { " (up to \(TimeText.words($0.timeIntervalSinceNow)))" } ?? ""
        console.err("\(message)\(left)")
      } else {
        let left = deadline.map { ", \(TimeText.words($0.timeIntervalSinceNow)) left" } ?? ""
        console.err("Still waiting\(left)")
      }
      minutes += 1
      try? await Task.sleep(for: .seconds(60))
    }
  }
}
