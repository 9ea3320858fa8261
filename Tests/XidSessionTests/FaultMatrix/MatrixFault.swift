import Foundation
import Testing
import Xid
import XidTesting

/// One fault of the reliability matrix (docs/reliability.md), each run in one process and across
/// eight.
enum MatrixFault: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case lostResponseAfterRotation
  case serverError
  case htmlErrorPage
  case timeout
  case truncatedBody
  case oversizedBody
  case killedLockHolder
  case storageWriteFails
  case storageWritesFailBeyondRetry
  case lockedStorage
  case signOutSameProcess
  case signOutOtherProcess
  case newSignIn
  case signOutDuringSaveRetry
  case unreadableAfterAnswer
  case signOutDuringSlowRefresh
  case newSignInDuringSlowRefresh

  var testDescription: String { rawValue }

  /// How the matrix names the fault.
  var title: String {
    switch self {
    case .lostResponseAfterRotation: "the response is lost after the provider rotated"
    case .serverError: "a 5xx"
    case .htmlErrorPage: "an HTML error page"
    case .timeout: "a timeout"
    case .truncatedBody: "a truncated body"
    case .oversizedBody: "an oversized body"
    case .killedLockHolder: "kill -9 of a process holding the refresh lock"
    case .storageWriteFails: "a storage write that fails mid-refresh"
    case .storageWritesFailBeyondRetry: "storage writes that fail mid-refresh for longer than the first retry"
    case .lockedStorage: "locked storage (errSecInteractionNotAllowed)"
    case .signOutSameProcess: "a sign-out during a refresh, from the same process"
    case .signOutOtherProcess: "a sign-out during a refresh, from another process"
    case .newSignIn: "a new sign-in during a refresh"
    case .signOutDuringSaveRetry:
      "a sign-out while a refresh waits to retry its save, from a process whose storage has no lock directory"
    case .unreadableAfterAnswer: "a record that cannot be read once the provider answered (the keychain locks)"
    case .signOutDuringSlowRefresh: "a sign-out during a refresh slower than the sign-out's lock timeout"
    case .newSignInDuringSlowRefresh: "a new sign-in during a refresh slower than the sign-in's lock timeout"
    }
  }

  /// The fault injected at the token endpoint for the refresh of the fault round, if any.
  var tokenEndpointFault: TestProvider.Fault? {
    switch self {
    case .lostResponseAfterRotation: .dropResponse
    case .serverError: .respond(status: 503)
    case .htmlErrorPage: .htmlPage(status: 502)
    case .timeout: .timeout(after: Self.timeoutAfter)
    case .truncatedBody: .truncateBody
    case .oversizedBody: .oversizeBody
    case .killedLockHolder: .stall(.milliseconds(1500))
    case .signOutSameProcess, .signOutOtherProcess, .newSignIn, .unreadableAfterAnswer: .delay(.milliseconds(300))
    case .signOutDuringSlowRefresh, .newSignInDuringSlowRefresh: .delay(Self.slowRefresh)
    case .storageWriteFails, .storageWritesFailBeyondRetry, .lockedStorage, .signOutDuringSaveRetry: nil
    }
  }

  /// Whether the fault is a sign-out during a refresh.
  var isSignOut: Bool {
    [.signOutSameProcess, .signOutOtherProcess, .signOutDuringSaveRetry, .signOutDuringSlowRefresh].contains(self)
  }

  /// Whether the fault is a new sign-in during a refresh.
  var isNewSignIn: Bool { self == .newSignIn || self == .newSignInDuringSlowRefresh }

  /// The refresh lock timeout of the test process's `Xid`, which signs out or in: shorter than the
  /// refresh the provider holds in the slow cases, the default otherwise.
  var refreshLockTimeout: Duration {
    switch self {
    case .signOutDuringSlowRefresh, .newSignInDuringSlowRefresh: Self.slowRefreshLockTimeout
    default: SessionPolicy().refreshLockTimeout
    }
  }

  /// Whether the test process's storage has the refresh lock directory (the App Group folder): not
  /// where the sign-out comes from a process without one (the iOS default, `KeychainTokenStorage()`).
  var testProcessHasALockDirectory: Bool { self != .signOutDuringSaveRetry }

  /// Whether `observed` is what may become of the session: ``expected``, or, while a killed process's
  /// refresh hangs with the lock held, callers that gave up waiting with `lockTimeout` (the user
  /// stays signed in) and a next expiry without error.
  func accepts(_ observed: MatrixOutcome, rounds: [RoundObservation]) -> Bool {
    if observed == expected { return true }
    guard observed == .keptAfterTransientFailure, let first = rounds.first else { return false }
    switch self {
    case .killedLockHolder: return Set(first.errors.keys) == ["lockTimeout"]
    // A process that read the record while it could not be read (not the refreshing one, whose
    // read is part of its save) told its callers so; the refresh saved its tokens.
    case .unreadableAfterAnswer: return Set(first.errors.keys) == ["storageLocked"]
    default: return false
    }
  }

  /// What must become of the session.
  var expected: MatrixOutcome {
    switch self {
    // The provider committed a rotation whose answer never arrived whole: the next refresh presents
    // the spent token, and the provider's reuse detection revokes the grant (invalid_grant).
    case .lostResponseAfterRotation, .truncatedBody, .oversizedBody: .endedByProvider
    case .serverError, .htmlErrorPage, .timeout, .lockedStorage: .keptAfterTransientFailure
    case .killedLockHolder, .storageWriteFails, .storageWritesFailBeyondRetry, .unreadableAfterAnswer:
      .keptWithoutError
    case .signOutSameProcess, .signOutOtherProcess, .signOutDuringSaveRetry, .signOutDuringSlowRefresh: .signedOut
    case .newSignIn, .newSignInDuringSlowRefresh: .newSignInKept
    }
  }
}

/// What became of the session in a matrix case.
enum MatrixOutcome: String, Sendable, Codable {
  /// Every caller got a token; no error reached the app.
  case keptWithoutError
  /// Some callers got a transient error (the user is still signed in); the next expiry refreshed.
  case keptAfterTransientFailure
  /// The provider proved the grant dead (`invalid_grant`): the session ended with `sessionExpired`.
  case endedByProvider
  /// The user signed out; nobody is signed in afterwards, in any process.
  case signedOut
  /// The session signed in during the refresh is the one stored; the refresh did not overwrite it.
  case newSignInKept
  /// Anything else: a failure of the matrix.
  case unexpected

  /// How docs/reliability.md names it.
  var title: String {
    switch self {
    case .keptWithoutError: "Session kept, no error reached the app"
    case .keptAfterTransientFailure: "Session kept after a transient error"
    case .endedByProvider: "Session ended by the provider (proven dead grant)"
    case .signedOut: "Signed out by the user, and stays signed out"
    case .newSignInKept: "The new sign-in is kept"
    case .unexpected: "Unexpected"
    }
  }
}

extension MatrixFault {
  /// How many storage writes fail in ``storageWritesFailBeyondRetry``: more than a save and its first
  /// retry.
  static let writesFailingBeyondRetry = 4
  /// How far the provider's clock moves in ``timeout`` while it holds the request: past every
  /// process's request timeout (30 seconds) and lock timeout (10 or 20 seconds).
  static let timeoutAfter = Duration.seconds(60)
  /// How long the provider holds the refresh in the slow cases: longer than
  /// ``slowRefreshLockTimeout``.
  static let slowRefresh = Duration.seconds(3)
  /// The refresh lock timeout of the test process in the slow cases.
  static let slowRefreshLockTimeout = Duration.seconds(1)
}
