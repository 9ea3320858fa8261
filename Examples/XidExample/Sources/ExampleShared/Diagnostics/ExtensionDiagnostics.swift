#if canImport(Security)
  import ExampleDiagnostics
  import Foundation
  import Xid

  /// Checks 4 and 5: the app writes a random value in the shared keychain access group and notes it
  /// in the App Group (``prepare()``); the App Intent and the widget read it in their own processes
  /// and take the account's lock (``run(in:)``), and store what they saw in the App Group for the
  /// Diagnostics screen. Nothing here reads a token: the value lives under a service of its own.
  public enum ExtensionDiagnostics {
    /// The keychain service of the value the extensions read: not the tokens' (`dev.xid.tokens`),
    /// with the same access group and accessibility.
    public static let probeService = "dev.xid.example.diagnostics"
    /// The item's account.
    public static let probeKey = "extension-probe"
    /// How long ``holdLock(for:)`` holds the account's lock: less than the 10 s an extension waits for
    /// it (`SessionPolicy.refreshLockTimeout`), so that one that waits gets it once the app lets go.
    public static let holdDuration = Duration.seconds(8)

    /// The diagnostics folder in this target's App Group container.
    ///
    /// - Throws: `invalidConfiguration` for the Info.plist, `missingEntitlement` without the App Group.
    public static func folder() throws -> DiagnosticsFolder {
      try folder(appGroup: ExampleSettings.fromMainBundle().appGroup)
    }

    static func folder(appGroup: String) throws -> DiagnosticsFolder {
      guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup) else {
        throw XidError(
          .missingEntitlement,
          "App Group \(appGroup) is not in this target's entitlements: add the App Groups capability with it")
      }
      return DiagnosticsFolder(appGroupContainer: container)
    }

    /// The storage of the value: the tokens' keychain access group and accessibility (after the first
    /// unlock, this device only), another service.
    static func probeStorage(_ settings: ExampleSettings) -> KeychainTokenStorage {
      KeychainTokenStorage(service: probeService, accessGroup: settings.keychainAccessGroup)
    }

    // MARK: - In the app

    /// Writes a new random value in the shared keychain access group and notes it in the App Group,
    /// for the extensions to check. In the app.
    @discardableResult
    public static func prepare() throws -> ExtensionRequest {
      let settings = try ExampleSettings.fromMainBundle()
      let folder = try folder(appGroup: settings.appGroup)
      let request = ExtensionRequest(id: UUID().uuidString, madeAt: Date())
      try probeStorage(settings).save(key: probeKey, value: request.id)
      try folder.write(request, to: .extensionRequest)
      return request
    }

    /// Prepares again (so that the widget answers anew), then holds the account's lock for
    /// `duration` and notes when. In the app; the widget's or the intent's attempt meanwhile must wait.
    public static func holdLock(for duration: Duration = holdDuration) async throws -> AppLockHold {
      try ExampleAccount.configure()
      try prepare()
      let folder = try folder()
      let requested = Date()
      let check = try await Xid.shared.checkAccountLock(holding: duration)
      let hold = AppLockHold(
        from: requested.addingTimeInterval(Double(check.waited.milliseconds) / 1000), until: Date())
      try folder.save(hold)
      return hold
    }

    // MARK: - In an extension

    /// Reads the app's value and takes the account's lock in this process, and stores the outcome in
    /// the App Group for the app. In the App Intent, or the widget.
    @discardableResult
    public static func run(in process: DiagnosticsProcess) async -> ExtensionRecord {
      let ranAt = Date()
      let settings: ExampleSettings
      let folder: DiagnosticsFolder
      do {
        settings = try ExampleSettings.fromMainBundle()
        folder = try Self.folder(appGroup: settings.appGroup)
      } catch {
        // Nowhere to store it: the intent's dialog says it.
        return ExtensionRecord(
          process: process, requestID: nil, ranAt: ranAt, setup: ObservedError(error), probe: .noRequest, lock: nil)
      }
      let request = try? folder.read(ExtensionRequest.self, from: .extensionRequest)
      let probe: ProbeReading
      if let request {
        do {
          let value = try probeStorage(settings).load(key: probeKey)
          probe = value == nil ? .missing : value == request.id ? .matches : .differs
        } catch {
          probe = .failed(ObservedError(error))
        }
      } else {
        probe = .noRequest
      }
      var setup: ObservedError?
      var lock: LockAttempt?
      do {
        try ExampleAccount.configure()
        let startedAt = Date()
        do {
          let check = try await Xid.shared.checkAccountLock()
          lock = LockAttempt(
            startedAt: startedAt, isShared: check.isShared, waitedMilliseconds: check.waited.milliseconds)
        } catch {
          lock = LockAttempt(startedAt: startedAt, error: ObservedError(error))
        }
      } catch {
        setup = ObservedError(error)
      }
      let record = ExtensionRecord(
        process: process, requestID: request?.id, ranAt: ranAt, setup: setup, probe: probe, lock: lock)
      try? folder.write(record, to: .extensionRecord(process))
      return record
    }

    /// Runs the checks when the app prepared them since this extension's last answer; otherwise does
    /// nothing. For the widget, whose timeline the app reloads after Prepare and Hold the Lock.
    public static func answerIfAsked(in process: DiagnosticsProcess) async {
      guard let folder = try? folder(), let request = try? folder.read(ExtensionRequest.self, from: .extensionRequest)
      else { return }
      let last = try? folder.read(ExtensionRecord.self, from: .extensionRecord(process))
      guard last?.requestID != request.id else { return }
      await run(in: process)
    }

    /// Runs the checks in the App Intents extension and says what they saw, for the intent's dialog.
    public static func runForIntent() async -> String {
      await run(in: .intent).summary
    }
  }
#endif
