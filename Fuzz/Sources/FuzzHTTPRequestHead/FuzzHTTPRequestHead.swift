import Foundation
import FuzzSupport

@testable import XidLoopback

/// The loopback server's request head on arbitrary bytes, through the same steps as
/// `LoopbackConnection`: `HTTPHeadScanner` as bytes arrive (in two parts, and all at once), then
/// `HTTPRequestHead.parse`, `checkHost(port:)`, `bodyLength(maxBodyBytes:)` and the target as a URL,
/// with the server's default limits.
///
/// These types are internal to XidLoopback, so this target uses `@testable import` (fuzz.sh builds
/// with `-enable-testing`). Feeding a running `LoopbackHTTPServer` through a socket would be
/// hundreds of times slower.
///
/// Properties checked, besides "no crash, no hang, bounded memory":
/// - scanning in two parts finds the same end (or the same refusal) as scanning at once;
/// - every refusal is a 4xx or 5xx status;
/// - a head that parses has a target starting with `/` and a body length within the limit.
@main
enum FuzzHTTPRequestHead {
  static func main() { LibFuzzer.run(LLVMFuzzerTestOneInput) }
}

private let limits = LoopbackHTTPServer.Limits()
private let port: UInt16 = 8080

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let buffer = Array(LibFuzzer.bytes(data, size))
  let whole = scan([buffer])
  let split = buffer.count / 3
  let parts = scan([Array(buffer[..<split]), buffer])
  fuzzCheck(whole == parts, "scanning in parts ends elsewhere than scanning at once")
  guard case .end(let end)? = whole, end <= limits.maxHeadBytes else { return 0 }
  do {
    let head = try HTTPRequestHead.parse(buffer[..<(end - 4)], maxHeaderFields: limits.maxHeaderFields)
    fuzzCheck(head.target.hasPrefix("/"), "a request target not in origin form")
    try head.checkHost(port: port)
    let length = try head.bodyLength(maxBodyBytes: limits.maxBodyBytes)
    fuzzCheck((0...limits.maxBodyBytes).contains(length), "a body length outside the limit")
    _ = URL(string: "http://127.0.0.1:\(port)\(head.target)")
  } catch let rejection as HTTPRequestRejection {
    fuzzCheck((400..<600).contains(rejection.status), "a refusal that is not an error status")
  } catch {
    fuzzCheck(false, "an error that is not a refusal")
  }
  return 0
}

private enum ScanResult: Equatable {
  case end(Int)
  case incomplete
  case refused(Int)
}

/// Scans `buffers`, each the bytes received so far, as the connection does; the last result.
private func scan(_ buffers: [[UInt8]]) -> ScanResult? {
  var scanner = HTTPHeadScanner()
  var result: ScanResult?
  for buffer in buffers {
    do {
      result = try scanner.scan(buffer).map(ScanResult.end) ?? .incomplete
      if case .end = result { return result }
    } catch let rejection as HTTPRequestRejection {
      return .refused(rejection.status)
    } catch {
      fuzzCheck(false, "an error that is not a refusal")
    }
  }
  return result
}
