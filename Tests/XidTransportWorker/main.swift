// A process of URLSessionTransportTests that measures what a refused oversized answer costs, alone in
// its process so that no other test's memory counts: it warms a URLSessionTransport up with one small
// answer, notes the process's resident size (the base), then asks a StreamingServer for an answer of
// BODY_BYTES (with Content-Length when DECLARES is 1) with a limit of LIMIT_BYTES, and reports, once
// the server's connection has ended, the peak resident size (VmHWM) and what the server could write.
// The transport still works afterwards: a last small request must succeed.
//
// usage: XidTransportWorker BODY_BYTES LIMIT_BYTES DECLARES
//
// output (one line of JSON): {"baseBytes":…,"peakBytes":…,"error":"responseTooLarge",
//                             "bodyBytesWritten":…,"closedByClient":true}
import Foundation
import XidCore
import XidLoopback
import XidTestSupport
import XidURLSession

/// A field of /proc/self/status in bytes (VmRSS, VmHWM), or 0 where there is none (not Linux).
func status(_ field: String) -> Int {
  let text = (try? textFile(at: URL(fileURLWithPath: "/proc/self/status"))) ?? ""
  guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
    let kilobytes = line.split(separator: " ").compactMap({ Int($0) }).first
  else { return 0 }
  return kilobytes * 1024
}

let arguments = ProcessInfo.processInfo.arguments
guard arguments.count == 4, let bodySize = Int(arguments[1]), let limit = Int(arguments[2]) else {
  FileHandle.standardError.write(Data("usage: XidTransportWorker BODY_BYTES LIMIT_BYTES DECLARES\n".utf8))
  exit(2)
}
let declaresLength = arguments[3] == "1"

let transport = URLSessionTransport(maxResponseSize: limit)
// The warm-up: URLSession, libcurl and the loopback server's threads exist before the base is taken.
let small = try LoopbackHTTPServer { _ in HTTPResponse(status: 200, body: Data(count: 1024)) }
_ = try await transport.send(HTTPRequest(url: small.baseURL))
small.stop()
await small.waitUntilStopped()
let base = status("VmRSS")

let server = try StreamingServer(bodySize: bodySize, declaresLength: declaresLength)
var error = "none"
do {
  _ = try await transport.send(HTTPRequest(url: server.baseURL.appending(path: "/token")))
} catch let refusal as XidError {
  error = refusal.code.rawValue
}
let outcome = try await server.finished()
let after = try LoopbackHTTPServer { _ in HTTPResponse(status: 200, body: Data("ok".utf8)) }
guard try await transport.send(HTTPRequest(url: after.baseURL)).body == Data("ok".utf8) else {
  FileHandle.standardError.write(Data("the transport did not work after the refusal\n".utf8))
  exit(1)
}
let report: JSONValue = [
  "baseBytes": .int(Int64(base)), "peakBytes": .int(Int64(status("VmHWM"))), "error": .string(error),
  "bodyBytesWritten": .int(Int64(outcome.bodyBytesWritten)), "closedByClient": .bool(outcome.closedByClient),
]
print(String(decoding: report.serializedBytes(sortedKeys: true), as: UTF8.self))
