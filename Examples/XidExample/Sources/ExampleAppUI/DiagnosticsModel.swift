import ExampleDiagnostics
import ExampleShared
import Foundation
import SwiftUI
import UIKit
import WidgetKit

/// The Diagnostics screen's state: the latest outcome of each check, kept in the App Group so that
/// the extensions' outcomes and check 3's two runs come together, and the report to export.
@MainActor
final class DiagnosticsModel: ObservableObject {
  /// Every check's latest outcome, with the device.
  @Published private(set) var report: DiagnosticsReport
  /// The check under way, if any (the buttons are disabled meanwhile).
  @Published private(set) var running: DiagnosticsCheck?
  /// The last failure to show (the folder cannot be read, Prepare failed, …).
  @Published var failure: String?

  private let environment = DeviceChecks.environment()

  init() {
    report = DiagnosticsReport(environment: environment, madeAt: Date(), results: [])
  }

  var isRunning: Bool { running != nil }

  /// Reads the outcomes again: the app's, and the extensions' from the App Group.
  func reload() {
    do {
      report = DiagnosticsReport(
        environment: environment, madeAt: Date(), results: try ExtensionDiagnostics.folder().results())
    } catch {
      failure = Self.text(of: error)
    }
  }

  /// Runs checks 1 to 3 in turn (check 3's first or second run), then prepares checks 4 and 5.
  func runAll() async {
    for check in [DiagnosticsCheck.rightStoreMissingRight, .oneContextDecryptsAndSigns, .biometryEnrollmentChange] {
      await run(check)
    }
    prepareExtensions()
  }

  /// Runs one of checks 1 to 3 in the app and keeps its outcome.
  func run(_ check: DiagnosticsCheck) async {
    guard running == nil else { return }
    running = check
    defer { running = nil }
    do {
      let folder = try ExtensionDiagnostics.folder()
      let result: DiagnosticsResult
      switch check {
      case .rightStoreMissingRight: result = await DeviceChecks.rightStoreMissingRight()
      case .oneContextDecryptsAndSigns: result = await DeviceChecks.oneContextDecryptsAndSigns()
      case .biometryEnrollmentChange: result = await DeviceChecks.biometryEnrollmentChange(in: folder)
      case .extensionReadsKeychainItem, .extensionTakesAppGroupLock:
        prepareExtensions()
        return
      }
      try folder.save(result)
    } catch {
      failure = Self.text(of: error)
    }
    reload()
  }

  /// Forgets check 3's key, so that its next run makes a new one.
  func startOverEnrollmentChange() {
    do {
      let folder = try ExtensionDiagnostics.folder()
      DeviceChecks.startOverEnrollmentChange(in: folder)
      try folder.save(.notRun(.biometryEnrollmentChange))
    } catch {
      failure = Self.text(of: error)
    }
    reload()
  }

  /// Writes a new value for the extensions to read, and asks the widget to reload.
  func prepareExtensions() {
    do {
      try ExtensionDiagnostics.prepare()
      WidgetCenter.shared.reloadAllTimelines()
    } catch {
      failure = Self.text(of: error)
    }
    reload()
  }

  /// Holds the account's lock for 8 seconds and asks the widget to reload meanwhile: its attempt must
  /// wait until the app lets go.
  func holdLock() async {
    guard running == nil else { return }
    running = .extensionTakesAppGroupLock
    defer { running = nil }
    async let hold = ExtensionDiagnostics.holdLock()
    // Once the app has the lock (taking it is quick), the widget's timeline is asked for.
    try? await Task.sleep(for: .milliseconds(500))
    WidgetCenter.shared.reloadAllTimelines()
    do {
      _ = try await hold
    } catch {
      failure = Self.text(of: error)
    }
    // The widget reports a moment after the app let go.
    try? await Task.sleep(for: .seconds(1))
    reload()
  }

  /// Puts the report on the pasteboard.
  func copyReport() {
    UIPasteboard.general.string = report.text
  }

  private static func text(of error: any Error) -> String {
    let error = ObservedError(error)
    return "\(error.message) (\(error.code))"
  }
}
