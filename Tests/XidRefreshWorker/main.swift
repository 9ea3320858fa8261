// A process of the multi-process tests (Tests/XidSessionTests: MultiProcessRefreshTests, and the
// FaultMatrix suite): it shares a storage with other processes like it and, in each round the test
// starts, asks for an access token from many concurrent tasks. It never prints a token. The interop test
// (Tests/XidInteropTests) runs it against glewlwyd, with that provider's UserInfo endpoint as the resource.
//
// usage: XidRefreshWorker ISSUER CLIENT_ID REDIRECT_URI STATE_DIR CONTROL_DIR WORKER_INDEX TASKS ROUNDS [RESOURCE_URL]
//        (RESOURCE_URL, where each round's tokens are tried: ISSUER/resource by default)
//
// Each round R starts when CONTROL_DIR holds go-R (every worker) or go-R-INDEX (this one), and ends
// with the report done-R-INDEX (JSON: distinctTokens, errors, errorDescriptions, resourceStatuses,
// tokenFingerprints).
//
// environment:
//   XID_WORKER_QUIRKS=empty400     ProviderQuirks.emptyBadRequestIsInvalidGrant (glewlwyd)
//   XID_WORKER_STORAGE=keychain:APP_GROUP_DIR
//                                  KeychainTokenStorage on a FileKeychainBackend whose items are in
//                                  STATE_DIR, the refresh lock in APP_GROUP_DIR's Xid folder
//   XID_WORKER_CLOCK=control       the time is now + the seconds in CONTROL_DIR/clock-R, read when round R
//                                  starts and again (every 5 ms at most) during it: the test moves time
//                                  without sleeping, also mid-round to make a timeout fire
//   XID_WORKER_LOG=1               every log message goes to CONTROL_DIR/log-INDEX (the test looks for
//                                  secrets in them)
//   XID_WORKER_FIRST_ROUND=N       the first round is N (a process that joins later)
//   a file CONTROL_DIR/action-R-INDEX holding "signOut": this worker signs out 50 ms into round R
//   XID_WORKER_ONCE=signIn|signOut  (SessionEventTests) signs in as the test provider's user (over
//                                  loopback, no browser) or signs out, then exits 0 (1 on failure)
//   XID_WORKER_FAMILY=NAME          (AppFamilyProcessTests) the client is a member of the app family NAME
//                                  (ds_hash by at_hash's rule, as XidTesting derives it); XID_WORKER_ONCE
//                                  then also takes signInFromFamily (the family's first account, no
//                                  browser), familySignOut and token (a refreshed access token); exit 3
//                                  when the family's session is gone
import Foundation
import Xid
import XidTestSupport
import XidTesting

let arguments = ProcessInfo.processInfo.arguments
let environment = ProcessInfo.processInfo.environment
guard arguments.count == 9 || arguments.count == 10, let tasks = Int(arguments[7]), let rounds = Int(arguments[8])
else {
  FileHandle.standardError.write(
    Data(
      "usage: XidRefreshWorker ISSUER CLIENT_ID REDIRECT_URI STATE_DIR CONTROL_DIR INDEX TASKS ROUNDS [RESOURCE_URL]\n"
        .utf8))
  exit(2)
}
let control = URL(fileURLWithPath: arguments[5], isDirectory: true)
let index = arguments[6]
let resource = URL(string: arguments.count == 10 ? arguments[9] : arguments[1] + "/resource")!
let firstRound = Int(environment["XID_WORKER_FIRST_ROUND"] ?? "") ?? 1
let transport = URLSessionTransport(timeout: .seconds(20))
let clock = WorkerClock()
let logger: any XidLogger =
  environment["XID_WORKER_LOG"] == "1"
  ? FileLogger(path: control.appendingPathComponent("log-\(index)").path)
  : StandardErrorLogger(minimumLevel: .error)
var identity = ClientIdentity(
  issuer: URL(string: arguments[1])!, clientId: arguments[2], redirectUri: URL(string: arguments[3])!)
identity.family = environment["XID_WORKER_FAMILY"].map(AppFamily.init(name:))
let xid = try Xid(
  configuration: XidConfiguration(
    identity: identity,
    policy: SessionPolicy(
      expiryLeeway: .seconds(1), refreshLockTimeout: .seconds(20),
      providerQuirks: environment["XID_WORKER_QUIRKS"] == "empty400" ? [.emptyBadRequestIsInvalidGrant] : [],
      deviceSecretHashRule: identity.family == nil ? .providerDefined : .atHashRule),
    parts: SessionParts(
      transport: transport, storage: makeStorage(state: URL(fileURLWithPath: arguments[4], isDirectory: true)),
      clock: clock, userAgent: TestUserAgent(browser: TestBrowser(transport: transport)), logger: logger)))

if let once = environment["XID_WORKER_ONCE"] {
  do {
    switch once {
    case "signIn": try await xid.signIn()
    case "signOut": try await xid.signOut()
    case "signInFromFamily":
      guard let account = try await xid.familyAccounts().first else { exit(3) }
      try await xid.signIn(from: account)
    case "familySignOut": try await xid.signOut(scope: .family)
    case "token": _ = try await xid.getAccessToken(forceRefresh: true)
    default: exit(2)
    }
    exit(0)
  } catch let error as XidError where error.code == .sessionExpired || error.code == .signInRequired {
    exit(3)
  } catch {
    FileHandle.standardError.write(
      Data(
        "XID_WORKER_ONCE=\(once) failed: \((error as? XidError)?.description ?? String(describing: type(of: error)))\n"
          .utf8))
    exit(1)
  }
}

func makeStorage(state: URL) throws -> any TokenStorageAdapter {
  let setting = environment["XID_WORKER_STORAGE"] ?? "files"
  guard setting.hasPrefix("keychain:") else { return try FileTokenStorage(directory: state) }
  let container = URL(fileURLWithPath: String(setting.dropFirst("keychain:".count)), isDirectory: true)
  return KeychainTokenStorage(
    accessGroup: "TEAMID.com.example.shared",
    refreshLockDirectory: KeychainTokenStorage.refreshLockDirectory(inAppGroupContainer: container),
    backend: try FileKeychainBackend(directory: state))
}

/// The system's time, moved on by the offset the test sets for each round in CONTROL_DIR/clock-R. The
/// test may move it again during the round (rewriting the file): the file is read again when it was
/// last read more than 5 ms ago, and timeouts on this clock end when the time they wait for is
/// reached.
final class WorkerClock: XidClock {
  private let state = LockedValue<(offset: TimeInterval, file: URL?, readAt: ContinuousClock.Instant?)>(
    (0, nil, nil))

  var now: Date {
    let (offset, file, readAt) = state.get()
    guard let file, readAt.map({ ContinuousClock.now - $0 > .milliseconds(5) }) ?? true else {
      return Date().addingTimeInterval(offset)
    }
    let read = (try? String(contentsOf: file, encoding: .utf8)).flatMap(TimeInterval.init)
    let current = state.update { state -> TimeInterval in
      if let read { state.offset = read }
      state.readAt = ContinuousClock.now
      return state.offset
    }
    return Date().addingTimeInterval(current)
  }

  /// The system's: the offset only sets the wall clock.
  var monotonicNow: ContinuousClock.Instant { ContinuousClock.now }

  func sleep(for duration: Duration) async throws { try await SystemClock().sleep(for: duration) }

  func sleep(until deadline: Date) async throws {
    while now < deadline { try await Task.sleep(for: .milliseconds(10)) }
  }

  /// Follows `file` (the round's clock file) from now on.
  func follow(_ file: URL) {
    state.update {
      $0.file = file
      $0.readAt = nil
    }
    _ = now
  }
}

/// Appends every message to a file, one line each.
struct FileLogger: XidLogger {
  let path: String
  func log(_ level: XidLogLevel, category: String, _ message: String) {
    let line = Data("[\(category)] \(level): \(message)\n".utf8)
    guard let handle = FileHandle(forWritingAtPath: path) else {
      _ = FileManager.default.createFile(atPath: path, contents: line)
      return
    }
    handle.seekToEndOfFile()
    handle.write(line)
    try? handle.close()
  }
}

func exists(_ name: String) -> Bool {
  FileManager.default.fileExists(atPath: control.appendingPathComponent(name).path)
}

func waitForGo(_ round: Int) async throws {
  let deadline = ContinuousClock.now + .seconds(120)
  while !exists("go-\(round)") && !exists("go-\(round)-\(index)") {
    guard ContinuousClock.now < deadline else { throw XidError(.timedOut, "no go-\(round) from the test") }
    try await Task.sleep(for: .milliseconds(2))
  }
}

try Data().write(to: control.appendingPathComponent("ready-\(index)"))
for round in firstRound...rounds {
  try await waitForGo(round)
  if environment["XID_WORKER_CLOCK"] == "control" {
    clock.follow(control.appendingPathComponent("clock-\(round)"))
  }
  let action = try? String(contentsOf: control.appendingPathComponent("action-\(round)-\(index)"), encoding: .utf8)
  // Every task asks at once; record the token it got or the error.
  let outcomes = await withTaskGroup(of: Result<String, XidError>.self) { group in
    for _ in 0..<tasks {
      group.addTask {
        do { return .success(try await xid.getAccessToken()) } catch let error as XidError {
          return .failure(error)
        } catch {
          return .failure(XidError(.networkFailure, "\(type(of: error))"))
        }
      }
    }
    if action == "signOut" {
      group.addTask {
        try? await Task.sleep(for: .milliseconds(50))
        do {
          try await xid.signOut()
          return .failure(XidError(.signInRequired, "signed out"))
        } catch let error as XidError {
          return .failure(error)
        } catch {
          return .failure(XidError(.networkFailure, "\(type(of: error))"))
        }
      }
    }
    var all: [Result<String, XidError>] = []
    for await outcome in group { all.append(outcome) }
    return all
  }
  let tokens = Set(outcomes.compactMap { try? $0.get() })
  var errors: [String] = []
  var descriptions: Set<String> = []
  for case .failure(let error) in outcomes where error.reason != "signed out" {
    errors.append(error.code.rawValue)
    descriptions.insert("\(error)")
  }
  // Each distinct token must be accepted by the provider's protected resource right now. A 401 is
  // asked once more, 300 ms later: glewlwyd refused a token it had just issued to 2 of 8 workers
  // while the 6 others' identical requests with it were accepted (CI, 2026-12-02). A token that has
  // expired, or was never issued, is refused again, so the check still catches those.
  var statuses: [JSONValue] = []
  for token in tokens {
    var request = HTTPRequest(url: resource)
    request.headers["Authorization"] = "Bearer " + token
    var status = (try? await transport.send(request).status) ?? 0
    if status == 401 {
      try await Task.sleep(for: .milliseconds(300))
      status = (try? await transport.send(request).status) ?? 0
    }
    statuses.append(.int(Int64(status)))
  }
  // Fingerprints (a truncated SHA-256, never the token) let the test compare tokens across processes.
  let fingerprints = tokens.map { JSONValue.string(Base64URL.encode(XidCrypto.sha256(Array($0.utf8)).prefix(9))) }
  let report: JSONValue = [
    "distinctTokens": .int(Int64(tokens.count)), "errors": .array(errors.map(JSONValue.string)),
    "errorDescriptions": .array(descriptions.sorted().map(JSONValue.string)),
    "resourceStatuses": .array(statuses), "tokenFingerprints": .array(fingerprints),
  ]
  // Written aside and renamed: the test reads a report as soon as its name appears.
  let temporary = control.appendingPathComponent(".done-\(round)-\(index).tmp")
  try Data(report.serializedBytes()).write(to: temporary)
  try FileManager.default.moveItem(at: temporary, to: control.appendingPathComponent("done-\(round)-\(index)"))
}
