// A process of the multi-process refresh test (Tests/XidSessionTests/MultiProcessRefreshTests.swift):
// it shares a FileTokenStorage directory with other processes like it and, in each round the test
// starts, asks for an access token from many concurrent tasks. It never prints a token. The interop test
// (Tests/XidInteropTests) runs it against glewlwyd, with that provider's UserInfo endpoint as the resource.
//
// usage: XidRefreshWorker ISSUER CLIENT_ID REDIRECT_URI STATE_DIR CONTROL_DIR WORKER_INDEX TASKS ROUNDS [RESOURCE_URL]
//        (RESOURCE_URL, where each round's tokens are tried: ISSUER/resource by default)
// environment: XID_WORKER_QUIRKS=empty400 turns on ProviderQuirks.emptyBadRequestIsInvalidGrant (glewlwyd);
//   XID_WORKER_STORAGE=keychain:APP_GROUP_DIR keeps the session in KeychainTokenStorage on a
//   FileKeychainBackend whose items are in STATE_DIR, with the refresh lock in APP_GROUP_DIR's Xid folder.
import Foundation
import Xid
import XidTestSupport

let arguments = ProcessInfo.processInfo.arguments
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
let transport = URLSessionTransport(timeout: .seconds(20))
let xid = try Xid(
  configuration: XidConfiguration(
    issuer: URL(string: arguments[1])!, clientId: arguments[2], redirectUri: URL(string: arguments[3])!,
    expiryLeeway: .seconds(1), refreshLockTimeout: .seconds(20), transport: transport,
    logger: StandardErrorLogger(minimumLevel: .error),
    providerQuirks: ProcessInfo.processInfo.environment["XID_WORKER_QUIRKS"] == "empty400"
      ? [.emptyBadRequestIsInvalidGrant] : []),
  storage: makeStorage(state: URL(fileURLWithPath: arguments[4], isDirectory: true)))

func makeStorage(state: URL) throws -> any TokenStorageAdapter {
  let setting = ProcessInfo.processInfo.environment["XID_WORKER_STORAGE"] ?? "files"
  guard setting.hasPrefix("keychain:") else { return try FileTokenStorage(directory: state) }
  let container = URL(fileURLWithPath: String(setting.dropFirst("keychain:".count)), isDirectory: true)
  return KeychainTokenStorage(
    accessGroup: "TEAMID.com.example.shared",
    refreshLockDirectory: KeychainTokenStorage.refreshLockDirectory(inAppGroupContainer: container),
    backend: try FileKeychainBackend(directory: state))
}

func waitForFile(_ name: String) async throws {
  let path = control.appendingPathComponent(name).path
  let deadline = ContinuousClock.now + .seconds(60)
  while !FileManager.default.fileExists(atPath: path) {
    guard ContinuousClock.now < deadline else { throw XidError(.timedOut, "no \(name) from the test") }
    try await Task.sleep(for: .milliseconds(5))
  }
}

try Data().write(to: control.appendingPathComponent("ready-\(index)"))
for round in 1...rounds {
  try await waitForFile("go-\(round)")
  // Every task asks at once; record the token it got or the error code.
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
    var all: [Result<String, XidError>] = []
    for await outcome in group { all.append(outcome) }
    return all
  }
  let tokens = Set(outcomes.compactMap { try? $0.get() })
  var errors: [String] = []
  for case .failure(let error) in outcomes { errors.append(error.code.rawValue) }
  // Each distinct token must be accepted by the provider's protected resource right now.
  var statuses: [JSONValue] = []
  for token in tokens {
    var request = HTTPRequest(url: resource)
    request.headers["Authorization"] = "Bearer " + token
    let status = (try? await transport.send(request).status) ?? 0
    statuses.append(.int(Int64(status)))
  }
  // Fingerprints (a truncated SHA-256, never the token) let the test compare tokens across processes.
  let fingerprints = tokens.map { JSONValue.string(Base64URL.encode(XidCrypto.sha256(Array($0.utf8)).prefix(9))) }
  let report: JSONValue = [
    "distinctTokens": .int(Int64(tokens.count)), "errors": .array(errors.map(JSONValue.string)),
    "resourceStatuses": .array(statuses), "tokenFingerprints": .array(fingerprints),
  ]
  // Written aside and renamed: the test reads a report as soon as its name appears.
  let temporary = control.appendingPathComponent(".done-\(round)-\(index).tmp")
  try Data(report.serializedBytes()).write(to: temporary)
  try FileManager.default.moveItem(at: temporary, to: control.appendingPathComponent("done-\(round)-\(index)"))
}
