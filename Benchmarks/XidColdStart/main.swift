// XidColdStart: the cold start of a command-line program whose common path only reads a stored token.
// Benchmarks/cold-start.sh times whole runs of it against BareStart and NetStart.
//
//   XidColdStart [--transport none] [--steps] DIRECTORY
//
// configures Xid as such a program would (XidConfiguration's defaults: URLSessionTransport, the system
// clock, the standard-error logger) with a FileTokenStorage in DIRECTORY, calls getAccessToken() once
// and writes the token's length in bytes to stdout, never the token. The issuer and client are the
// TestProvider's defaults (https://op.xid.test, xid-example), which
// `XidSessionBenchmarks --prepare-cold-start DIRECTORY` signs in to. No request is made: the stored
// access token must be valid; if it is not, the refresh fails for want of a network and so does the
// run (exit status 1, the error on stderr).
//
//   --transport none   a transport that refuses every request instead of URLSessionTransport, so that
//                      no URLSession is created: the difference to the default is what creating one
//                      costs (FoundationNetworking is still loaded; Xid links it either way).
//   --steps            also writes to stderr the CPU time the process used before `main` (loading
//                      and library initialisers) and the wall-clock time of each step: the
//                      configuration, FileTokenStorage, Xid(configuration:), getAccessToken()
//                      (the engine, the storage key, reading and decoding the record) and the output.
//
//   XidColdStart --read-only FILE
//
// does none of Xid's work: reads FILE and writes its length, like BareStart, from this binary. Its
// difference to BareStart is what loading this binary and its libraries costs.

import Foundation
import Xid

/// A transport that never sends: for `--transport none`.
struct NoTransport: HTTPTransport {
  func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    throw XidError(.networkFailure, "XidColdStart --transport none sends no requests")
  }
}

func fail(_ message: String, status: Int32) -> Never {
  FileHandle.standardError.write(Data(("XidColdStart: " + message + "\n").utf8))
  exit(status)
}

func cpuMilliseconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
  return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) * 1e-6
}

let cpuAtMain = cpuMilliseconds()
var arguments = Array(ProcessInfo.processInfo.arguments.dropFirst())
if arguments.count == 2 && arguments[0] == "--read-only" {
  guard let data = FileManager.default.contents(atPath: arguments[1]) else {
    fail("cannot read \(arguments[1])", status: 1)
  }
  print(data.count)
  exit(0)
}
var useURLSession = true
var showSteps = false
while arguments.count > 1 {
  if arguments.count >= 3 && arguments[0] == "--transport" && arguments[1] == "none" {
    useURLSession = false
    arguments.removeFirst(2)
  } else if arguments[0] == "--steps" {
    showSteps = true
    arguments.removeFirst()
  } else {
    break
  }
}
guard arguments.count == 1, !arguments[0].hasPrefix("--") else {
  fail("usage: XidColdStart [--transport none] [--steps] DIRECTORY | XidColdStart --read-only FILE", status: 2)
}

/// The steps' wall-clock times, for `--steps`.
let clock = ContinuousClock()
var stepStart = clock.now
var steps: [(String, Duration)] = []
@MainActor func step(_ name: String) {
  let now = clock.now
  steps.append((name, now - stepStart))
  stepStart = clock.now
}

do {
  let issuer = URL(string: "https://op.xid.test")!
  let redirectUri = URL(string: "com.example.app:/callback")!
  // Not a default argument replaced afterwards: that would create the URLSessionTransport all the same.
  var configuration =
    useURLSession
    ? XidConfiguration(issuer: issuer, clientId: "xid-example", redirectUri: redirectUri)
    : XidConfiguration(
      identity: ClientIdentity(issuer: issuer, clientId: "xid-example", redirectUri: redirectUri),
      parts: SessionParts(transport: NoTransport()))
  step("configuration")
  let storage = try FileTokenStorage(directory: URL(fileURLWithPath: arguments[0], isDirectory: true))
  step("storage")
  configuration.parts.storage = storage
  let xid = try Xid(configuration: configuration)
  step("xid")
  let token = try await xid.getAccessToken()
  step("getAccessToken")
  print(token.utf8.count)
  step("output")
} catch let error as XidError {
  fail("\(error.code): \(error.reason)", status: 1)
} catch {
  fail("\(error)", status: 1)
}
if showSteps {
  var line = "steps cpu_before_main_ms=\(String(format: "%.2f", cpuAtMain))"
  for (name, duration) in steps {
    let (seconds, attoseconds) = duration.components
    line += " \(name)_ms=\(String(format: "%.3f", Double(seconds) * 1e3 + Double(attoseconds) * 1e-15))"
  }
  line += " cpu_total_ms=\(String(format: "%.2f", cpuMilliseconds()))"
  FileHandle.standardError.write(Data((line + "\n").utf8))
}
