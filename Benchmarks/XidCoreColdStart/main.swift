// XidCoreColdStart: the cold start of a program that links XidCore alone (no networking library) and
// only reads its stored token. Benchmarks/cold-start.sh times it beside XidColdStart (the whole of
// Xid), BareStart and NetStart; XidSessionTests runs it to prove what it loads.
//
//   XidCoreColdStart DIRECTORY
//
// makes a SessionEngine with no transport and a FileTokenStorage in DIRECTORY, calls accessToken()
// once and writes the token's length in bytes to stdout, never the token. The issuer and client are
// the TestProvider's defaults (https://op.xid.test, xid-example), which
// `XidSessionBenchmarks --prepare-cold-start DIRECTORY` signs in to. No request can be made: if the
// stored access token is not valid, the run fails (exit status 1, the error on stderr).
//
//   XidCoreColdStart --loaded-libraries DIRECTORY
//
// does the same, then writes to stdout, one per line, the shared libraries mapped into the process
// (from /proc/self/maps on Linux; nothing elsewhere).
//
//   XidCoreColdStart --read-only FILE
//
// does none of XidCore's work: reads FILE and writes its length, like BareStart, from this binary. Its
// difference to BareStart is what loading this binary and its libraries costs (libcrypto is not among
// them: XidJOSE opens it on the first cryptographic operation).

import Foundation
import XidCore

func fail(_ message: String, status: Int32) -> Never {
  FileHandle.standardError.write(Data(("XidCoreColdStart: " + message + "\n").utf8))
  exit(status)
}

/// The paths of the shared objects mapped into this process.
///
/// Read to the end through a file handle: `String(contentsOfFile:)` stops after the first 4 KiB of a
/// file that reports no size, as /proc files do, which under ThreadSanitizer (whose mappings come
/// first) left libFoundation, and could leave libcurl, out of the list.
func loadedLibraries() -> [String] {
  guard let handle = FileHandle(forReadingAtPath: "/proc/self/maps") else { return [] }
  defer { try? handle.close() }
  let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
  var paths = Set<String>()
  for line in maps.split(separator: "\n") {
    guard let slash = line.firstIndex(of: "/") else { continue }
    let path = String(line[slash...])
    if path.contains(".so") { paths.insert(path) }
  }
  return paths.sorted()
}

var arguments = Array(ProcessInfo.processInfo.arguments.dropFirst())
if arguments.count == 2 && arguments[0] == "--read-only" {
  guard let data = FileManager.default.contents(atPath: arguments[1]) else {
    fail("cannot read \(arguments[1])", status: 1)
  }
  print(data.count)
  exit(0)
}
let listLibraries = arguments.first == "--loaded-libraries"
if listLibraries { arguments.removeFirst() }
guard arguments.count == 1, !arguments[0].hasPrefix("--") else {
  fail("usage: XidCoreColdStart [--loaded-libraries] DIRECTORY | XidCoreColdStart --read-only FILE", status: 2)
}
do {
  var configuration = XidConfiguration(
    issuer: URL(string: "https://op.xid.test")!, clientId: "xid-example",
    redirectUri: URL(string: "com.example.app:/callback")!)
  let storage = try FileTokenStorage(directory: URL(fileURLWithPath: arguments[0], isDirectory: true))
  configuration.parts.storage = storage
  let engine = try SessionEngine(configuration: configuration)
  let token = try await engine.accessToken()
  print(token.utf8.count)
} catch let error as XidError {
  fail("\(error.code): \(error.reason)", status: 1)
} catch {
  fail("\(error)", status: 1)
}
if listLibraries {
  for path in loadedLibraries() { print(path) }
}
