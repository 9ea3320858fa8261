import Foundation

/// What the app asks the extensions to check: the value it wrote in the shared keychain access group
/// is ``id``.
public struct ExtensionRequest: Codable, Sendable, Hashable {
  /// A new random value for each preparation; the keychain item holds it too.
  public var id: String
  /// When the app wrote it.
  public var madeAt: Date

  /// Creates a request.
  public init(id: String, madeAt: Date) {
    self.id = id
    self.madeAt = madeAt
  }
}

/// A time the app held the account's lock ("Hold the Lock"), for check 5 to see whether an
/// extension's attempt overlapped it.
public struct AppLockHold: Codable, Sendable, Hashable {
  /// When the app had the lock.
  public var from: Date
  /// When the app let go of it.
  public var until: Date

  /// Creates a hold.
  public init(from: Date, until: Date) {
    self.from = from
    self.until = until
  }
}

/// What an extension read of the app's keychain item.
public enum ProbeReading: Codable, Sendable, Hashable {
  /// The value the app wrote.
  case matches
  /// Another value.
  case differs
  /// No item.
  case missing
  /// The read failed.
  case failed(ObservedError)
  /// The app has not prepared the check: there is nothing to read.
  case noRequest
}

/// An extension's attempt to take the account's lock.
public struct LockAttempt: Codable, Sendable, Hashable {
  /// When it began.
  public var startedAt: Date
  /// Whether the lock is a file in the App Group (`AccountLockCheck.isShared`); `nil` when it failed.
  public var isShared: Bool?
  /// How long it waited for the lock, in milliseconds; `nil` when it failed.
  public var waitedMilliseconds: Int?
  /// Why it failed; `nil` when it took the lock.
  public var error: ObservedError?

  /// Creates an attempt.
  public init(startedAt: Date, isShared: Bool? = nil, waitedMilliseconds: Int? = nil, error: ObservedError? = nil) {
    self.startedAt = startedAt
    self.isShared = isShared
    self.waitedMilliseconds = waitedMilliseconds
    self.error = error
  }

  /// When it got the lock; `nil` when it failed.
  public var tookAt: Date? {
    waitedMilliseconds.map { startedAt.addingTimeInterval(Double($0) / 1000) }
  }
}

/// What one extension stored in the App Group after its checks.
public struct ExtensionRecord: Codable, Sendable, Hashable {
  /// The extension.
  public var process: DiagnosticsProcess
  /// The request it answered; `nil` when there was none.
  public var requestID: String?
  /// When it ran.
  public var ranAt: Date
  /// Why it could not start (its Info.plist, its entitlements); `nil` when it could.
  public var setup: ObservedError?
  /// What it read of the app's keychain item.
  public var probe: ProbeReading
  /// Its attempt to take the lock; `nil` when it could not start.
  public var lock: LockAttempt?

  /// Creates a record.
  public init(
    process: DiagnosticsProcess, requestID: String?, ranAt: Date, setup: ObservedError? = nil, probe: ProbeReading,
    lock: LockAttempt?
  ) {
    self.process = process
    self.requestID = requestID
    self.ranAt = ranAt
    self.setup = setup
    self.probe = probe
    self.lock = lock
  }

  /// One line for the dialog of the App Intent.
  public var summary: String {
    let probeText =
      switch probe {
      case .matches: "read the app's keychain item"
      case .differs: "read a different keychain item than the app wrote"
      case .missing: "found no keychain item of the app"
      case .failed(let error): "could not read the app's keychain item (\(error.code))"
      case .noRequest: "found nothing to check: tap Prepare in the app's Diagnostics first"
      }
    let lockText: String =
      if let setup {
        "could not start (\(setup.code))"
      } else if let error = lock?.error {
        "could not take the App Group lock (\(error.code))"
      } else if let lock, let waited = lock.waitedMilliseconds {
        (lock.isShared == true ? "took the App Group lock" : "took a lock that is not shared") + " after \(waited) ms"
      } else {
        "did not try the lock"
      }
    return
      "The \(process.rawValue) \(probeText) and \(lockText). Open the app's Diagnostics to see and export the results."
  }
}

/// Checks 4 and 5: what the extensions stored, against what the app asked.
public struct ExtensionObservation: Sendable, Hashable {
  /// The app's latest request; `nil` before Prepare.
  public var request: ExtensionRequest?
  /// The times the app held the lock.
  public var holds: [AppLockHold]
  /// The latest record of each extension.
  public var records: [ExtensionRecord]

  /// How much earlier than the app's release an extension may report taking the lock: the app notes
  /// the end of its hold after it let go, and each process reads its own clock.
  public static let tolerance: TimeInterval = 0.5

  /// Creates the observation.
  public init(request: ExtensionRequest?, holds: [AppLockHold], records: [ExtensionRecord]) {
    self.request = request
    self.holds = holds
    self.records = records.sorted { $0.process.rawValue < $1.process.rawValue }
  }

  static let notPrepared =
    "Tap Prepare, then run the shortcut \"Run Xid Diagnostics\" (Shortcuts app) or keep the Account widget on the Home Screen."
  static let notAnswered =
    "Run the shortcut \"Run Xid Diagnostics\" (Shortcuts app), or keep the Account widget on the Home Screen and tap Prepare again: the widget answers when it reloads."

  /// The records that answered the latest request, and lines about the others.
  private func answers() -> (current: [ExtensionRecord], stale: [String]) {
    let current = records.filter { $0.requestID != nil && $0.requestID == request?.id }
    let stale = records.filter { !current.contains($0) }.map {
      "\($0.process.rawValue): ran at \(DiagnosticsReport.timestamp($0.ranAt)) for an earlier preparation"
    }
    return (current, stale)
  }

  /// The outcomes of checks 4 and 5.
  public func results() -> [DiagnosticsResult] {
    [keychainResult(), lockResult()]
  }

  private func gate(_ check: DiagnosticsCheck) -> DiagnosticsResult? {
    guard request != nil else { return .notRun(check, next: Self.notPrepared) }
    let (current, stale) = answers()
    guard !current.isEmpty else {
      return DiagnosticsResult(check: check, verdict: .notRun, observed: stale, next: Self.notAnswered)
    }
    return nil
  }

  private func finish(
    _ check: DiagnosticsCheck, _ observed: [String], problems: [String], good: String
  ) -> DiagnosticsResult {
    let (current, stale) = answers()
    return DiagnosticsResult(
      check: check, verdict: problems.isEmpty ? .asExpected : .unexpected, observed: observed + stale,
      next: problems.isEmpty ? good : problems.joined(separator: "; ") + ".",
      ranAt: current.map(\.ranAt).max(), ranIn: current.map(\.process))
  }

  func keychainResult() -> DiagnosticsResult {
    let check = DiagnosticsCheck.extensionReadsKeychainItem
    if let result = gate(check) { return result }
    var observed: [String] = []
    var problems: [String] = []
    for record in answers().current {
      let name = record.process.rawValue
      if let setup = record.setup {
        observed.append("\(name): could not start: \(setup)")
        problems.append("the \(name) could not start (its Info.plist or entitlements)")
        continue
      }
      switch record.probe {
      case .matches:
        observed.append("\(name): read the item, the value the app wrote")
      case .differs:
        observed.append("\(name): read the item, another value than the app wrote")
        problems.append("the \(name) read another item: another app or target writes this service")
      case .missing:
        observed.append("\(name): no item")
        problems.append(
          "the \(name) does not see the app's item: check that both targets have the same Keychain Sharing group")
      case .failed(let error):
        observed.append("\(name): the read failed: \(error)")
        problems.append("the \(name) could not read the item (\(error.code))")
      case .noRequest:
        observed.append("\(name): found no request")
        problems.append("the \(name) found no request in the App Group")
      }
    }
    return finish(check, observed, problems: problems, good: "The extensions share the app's keychain items.")
  }

  /// The app's hold that was under way when `attempt` began, if any.
  func hold(overlapping attempt: LockAttempt) -> AppLockHold? {
    holds.first { attempt.startedAt >= $0.from && attempt.startedAt < $0.until.addingTimeInterval(-Self.tolerance) }
  }

  func lockResult() -> DiagnosticsResult {
    let check = DiagnosticsCheck.extensionTakesAppGroupLock
    if let result = gate(check) { return result }
    var observed: [String] = []
    var problems: [String] = []
    var excluded = false
    for record in answers().current {
      let name = record.process.rawValue
      guard let attempt = record.lock else {
        observed.append("\(name): did not try" + (record.setup.map { ": could not start: \($0)" } ?? ""))
        problems.append("the \(name) did not try the lock")
        continue
      }
      let overlap = hold(overlapping: attempt)
      if let error = attempt.error {
        observed.append("\(name): failed: \(error)" + (overlap == nil ? "" : ", while the app held the lock"))
        if error.isXid("lockTimeout") && overlap != nil {
          excluded = true
        } else {
          problems.append("the \(name) could not take the lock (\(error.code))")
        }
        continue
      }
      let waited = attempt.waitedMilliseconds ?? 0
      let shared = attempt.isShared == true
      var line = "\(name): took it after \(waited) ms, " + (shared ? "shared (a file in the App Group)" : "not shared")
      if !shared { problems.append("the \(name)'s lock is not shared: its storage has no App Group container") }
      if let overlap, let tookAt = attempt.tookAt {
        let early = overlap.until.timeIntervalSince(tookAt)
        if early > Self.tolerance {
          line += String(format: ", %.1f s before the app let go", early)
          problems.append("the \(name) got the lock while the app held it")
        } else {
          line += ", once the app let go"
          excluded = true
        }
      } else {
        line += "; the app did not hold it meanwhile"
      }
      observed.append(line)
    }
    let good =
      excluded
      ? "The extensions take the App Group lock, and wait while the app holds it."
      : "The extensions take the App Group lock. To see it exclude, tap Hold the Lock and let the widget reload (or run the shortcut) within 8 seconds."
    return finish(check, observed, problems: problems, good: good)
  }
}
