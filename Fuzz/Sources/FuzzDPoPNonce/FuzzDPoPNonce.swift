import Foundation
import FuzzSupport

@testable import XidProtocol
@testable import XidSession

/// A server's answer to a DPoP request on arbitrary bytes: the `DPoP-Nonce` header as
/// `DPoPNonceCache` learns it, the nonce cache a storage hands back, and the checks that decide
/// whether a 400 or 401 asks for a nonce or for a new token (RFC 9449 §7.1, §8, §9).
///
/// The input is a small response: a first line `STATUS URL`, header fields `Name: value` one per
/// line, an empty line, then the body. The body doubles as the stored nonce cache.
/// `DPoPNonceCache(storage:key:logger:)` and the response checks are internal to XidCore, so this
/// target uses `@testable import` (fuzz.sh builds with `-enable-testing`).
///
/// Properties checked, besides "no crash, no hang, bounded memory":
/// - a response's `DPoP-Nonce` is learnt exactly when it is a valid nonce, and the next proof to
///   that origin gets it, from memory and from the storage another process reads;
/// - a stored cache, whatever its bytes, yields only valid nonces;
/// - an origin never holds a path, query or fragment;
/// - only a 400 or 401 asks for a nonce, and only a 401 for a new token.
@main
enum FuzzDPoPNonce {
  static func main() { LibFuzzer.run(LLVMFuzzerTestOneInput) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let (response, url) = FuzzedResponse.parse(String(decoding: LibFuzzer.bytes(data, size), as: UTF8.self))

  let origin = DPoPNonceCache.origin(of: url)
  if let slashes = origin.range(of: "://") {
    fuzzCheck(
      !origin[slashes.upperBound...].contains { "/?#".contains($0) }, "an origin with a path, query or fragment")
  }

  let offered = response.headers.fields.first { $0.name.lowercased() == "dpop-nonce" }?.value
  let storage = InMemoryTokenStorage()
  let cache = DPoPNonceCache(storage: storage, key: "nonces", logger: DiscardingLogger())
  let learnt = cache.record(response, from: url)
  fuzzCheck(learnt == (offered.map(DPoPNonceCache.isValid) ?? false), "a DPoP-Nonce learnt unless it is valid")
  if learnt {
    fuzzCheck(cache.nonce(for: url) == offered, "a learnt nonce not used for its origin")
    let reader = DPoPNonceCache(storage: storage, key: "nonces", logger: DiscardingLogger())
    fuzzCheck(reader.nonce(for: url) == offered, "a learnt nonce lost in storage")
  }

  let stored = InMemoryTokenStorage()
  try? stored.save(key: "nonces", value: String(decoding: response.body, as: UTF8.self))
  let restored = DPoPNonceCache(storage: stored, key: "nonces", logger: DiscardingLogger())
  if let nonce = restored.nonce(for: url) {
    fuzzCheck(DPoPNonceCache.isValid(nonce), "an invalid nonce read from storage")
  }

  if response.asksForDPoPNonce {
    fuzzCheck(response.status == 400 || response.status == 401, "a nonce asked for by a status other than 400 or 401")
  }
  if response.asksForNewDPoPToken {
    fuzzCheck(response.status == 401, "a new token asked for by a status other than 401")
  }
  return 0
}

/// The input's response and the URL it came from.
enum FuzzedResponse {
  static let defaultURL = URL(string: "https://server.example.com/token")!

  /// `STATUS URL`, then `Name: value` lines, an empty line and the body; what does not parse falls
  /// back to a 401 from ``defaultURL`` (header lines without a colon are skipped).
  static func parse(_ text: String) -> (HTTPResponse, URL) {
    let (head, body) = split(text, at: "\n\n")
    var lines = head.split(separator: "\n", omittingEmptySubsequences: false)[...]
    let first = lines.popFirst() ?? ""
    let status = Int(first.prefix { $0 != " " }).flatMap { (100...599).contains($0) ? $0 : nil } ?? 401
    let url = URL(string: String(first.drop { $0 != " " }.dropFirst())) ?? defaultURL
    var response = HTTPResponse(status: status, headers: [:], body: Data(body.utf8))
    for line in lines {
      guard let colon = line.firstIndex(of: ":") else { continue }
      let value = line[line.index(after: colon)...].drop { $0 == " " }
      response.headers.append(name: String(line[..<colon]), value: String(value))
    }
    return (response, url)
  }

  private static func split(_ text: String, at separator: String) -> (Substring, Substring) {
    guard let range = text.range(of: separator) else { return (text[...], "") }
    return (text[..<range.lowerBound], text[range.upperBound...])
  }
}
