import Foundation
import Testing
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// Where a matrix case ran.
enum MatrixMode: String, Sendable, Codable {
  case oneProcess = "one process"
  case eightProcesses = "8 processes"
}

/// What one expiry round of a case saw.
struct RoundObservation: Sendable, Codable {
  /// Refresh requests the provider received.
  var refreshRequests = 0
  /// Requests an injected fault answered (or held), a delay included.
  var faultsApplied = 0
  /// Requests an injected fault made fail (not a delay): the retries after them do not count as
  /// refreshes of the expiry.
  var requestsFailedByFault = 0
  /// The error codes the app's callers got, with how many got each.
  var errors: [String: Int] = [:]
  /// The distinct access tokens the app's callers got (one per process when all went well).
  var tokens = 0

  init() {}

  init(before: TestProvider.Counters, after: TestProvider.Counters, errors: [String], tokens: Int) {
    refreshRequests = after.refreshes - before.refreshes
    faultsApplied = after.faultsApplied - before.faultsApplied
    requestsFailedByFault = after.requestsFailedByFault - before.requestsFailedByFault
    for error in errors { self.errors[error, default: 0] += 1 }
    self.tokens = tokens
  }
}

/// One case of the matrix: a fault in one mode, what became of the session, and the checks every case
/// must pass. Written to `$XID_RELIABILITY_RESULTS/<mode>.json` for docs/reliability.md.
struct MatrixResult: Sendable, Codable {
  var fault: String
  var title: String
  var mode: MatrixMode
  var expected: MatrixOutcome
  var observed: MatrixOutcome
  /// The round with the fault, then the next expiry.
  var rounds: [RoundObservation]
  /// Each check by name: passed, failed, or `nil` where it does not apply.
  var checks: [String: Bool?]
  var milliseconds: Int

  /// The checks every case makes, in the order the report shows them.
  static let checkNames = [
    "noRecordLostOrCorrupt", "noSignOutWithoutDeadGrant", "oneRefreshPerExpiry", "noSessionBackAfterSignOut",
    "droppedRefreshTokenRevoked", "noSecretInLogsOrErrors",
  ]

  /// The errors that leave the user signed in: worth retrying later (the network, the provider, a
  /// device locked, a lock another process's hanging refresh holds).
  static let transientErrors: Set<String> = [
    "networkFailure", "timedOut", "tokenRequestFailed", "unexpectedResponse", "responseTooLarge", "storageLocked",
    "lockTimeout",
  ]

  /// Works out the outcome and the checks from what the case saw, and expects them.
  ///
  /// - Parameter droppedTokenRevoked: for a sign-out or a new sign-in during a refresh, whether the
  ///   first user's newest refresh token (the one the fault round's refresh got, or the one the race
  ///   replaced when its revocation reached the provider first) is in the provider's record of
  ///   revoked tokens; `nil` for the other faults.
  init(
    fault: MatrixFault, mode: MatrixMode, rounds: [RoundObservation], stored: (record: TokenRecord?, corrupt: Bool),
    leaks: Int, droppedTokenRevoked: Bool? = nil, started: ContinuousClock.Instant,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    self.fault = fault.rawValue
    title = fault.title
    self.mode = mode
    self.rounds = rounds
    milliseconds = Int((ContinuousClock.now - started) / .milliseconds(1))
    let observed = Self.outcome(of: fault, rounds: rounds, stored: stored)
    self.observed = observed
    expected = fault.accepts(observed, rounds: rounds) ? observed : fault.expected
    checks = Self.checks(
      of: fault, rounds: rounds, stored: stored, leaks: leaks, droppedTokenRevoked: droppedTokenRevoked)
    #expect(observed == expected, "\(fault) in \(mode.rawValue): \(rounds)", sourceLocation: sourceLocation)
    for (name, passed) in checks {
      #expect(
        passed != false, "\(fault) in \(mode.rawValue): \(name) failed; \(rounds)", sourceLocation: sourceLocation)
    }
  }

  /// What the case shows, read from storage and from what the callers got.
  static func outcome(of fault: MatrixFault, rounds: [RoundObservation], stored: (record: TokenRecord?, corrupt: Bool))
    -> MatrixOutcome
  {
    let allErrors = rounds.flatMap(\.errors.keys)
    let sawSessionExpired = allErrors.contains("sessionExpired")
    let last = rounds.last ?? RoundObservation()
    let signOut = fault.isSignOut
    return if stored.corrupt {
      .unexpected
    } else if stored.record == nil {
      if sawSessionExpired && !signOut {
        .endedByProvider
      } else if signOut && last.tokens == 0 && Set(last.errors.keys) == ["signInRequired"] {
        .signedOut
      } else {
        .unexpected
      }
    } else if stored.record?.pinnedSubject == "bob" && last.errors.isEmpty {
      .newSignInKept
    } else if allErrors.isEmpty {
      .keptWithoutError
    } else if last.errors.isEmpty && Set(rounds[0].errors.keys).isSubset(of: transientErrors) {
      .keptAfterTransientFailure
    } else {
      .unexpected
    }
  }

  /// The checks, by name: passed, failed, or `nil` where one does not apply.
  static func checks(
    of fault: MatrixFault, rounds: [RoundObservation], stored: (record: TokenRecord?, corrupt: Bool), leaks: Int,
    droppedTokenRevoked: Bool?
  ) -> [String: Bool?] {
    let sawSessionExpired = rounds.flatMap(\.errors.keys).contains("sessionExpired")
    let last = rounds.last ?? RoundObservation()
    let signOut = fault.isSignOut
    // The provider spent a refresh token whose answer never arrived whole: only then may it refuse
    // the grant.
    let committedRotation = fault.expected == .endedByProvider
    let racesARefresh = signOut || fault.isNewSignIn
    return [
      "noRecordLostOrCorrupt": !stored.corrupt && (stored.record != nil || sawSessionExpired || signOut),
      "noSignOutWithoutDeadGrant": (!sawSessionExpired || committedRotation)
        && (stored.record != nil || signOut || sawSessionExpired),
      // A request a fault made fail may be retried; a request that was only slowed down (a delay)
      // may not be made twice.
      "oneRefreshPerExpiry": rounds.allSatisfy { $0.refreshRequests <= 1 + $0.requestsFailedByFault },
      "noSessionBackAfterSignOut": signOut ? (stored.record == nil && last.tokens == 0) : nil,
      "droppedRefreshTokenRevoked": racesARefresh ? (droppedTokenRevoked ?? false) : nil,
      "noSecretInLogsOrErrors": leaks == 0,
    ]
  }

  /// Writes `results` for the report script, when `XID_RELIABILITY_RESULTS` names a directory.
  static func write(_ results: [MatrixResult], mode: MatrixMode) throws {
    guard let directory = ProcessInfo.processInfo.environment["XID_RELIABILITY_RESULTS"] else { return }
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let name = mode == .oneProcess ? "one-process.json" : "eight-processes.json"
    try encoder.encode(results.sorted { $0.fault < $1.fault }).write(
      to: URL(fileURLWithPath: directory).appendingPathComponent(name))
  }
}

/// Counts the secrets the provider issued or received that appear in `texts`.
func secretLeaks(in texts: [String], provider: TestProvider) async -> Int {
  let secrets = await provider.issuedSecrets.filter { $0.count >= 8 }
  var leaks = 0
  for text in Set(texts) {
    for secret in secrets where text.contains(secret) {
      Issue.record("a secret leaked into: \(text.replacingOccurrences(of: secret, with: "[secret]").prefix(160))")
      leaks += 1
    }
  }
  return leaks
}
