import Foundation
import XidCore

/// SplitMix64: a small pseudo-random generator with a fixed seed, so every run tries the same mutations.
struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// One hostile variant of an input, named for the failure report.
struct Mutation: Sendable {
  let label: String
  let text: String
}

/// Deterministic mutations of a compact JWS and of a redirect URL.
enum Mutations {
  static let base64URLAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
  /// Characters that are not base64url: padding, the other alphabet, separators, controls, non-ASCII.
  static let foreignCharacters: [Character] = ["=", "+", "/", " ", ".", "%", "\u{0}", "\n", "é", "\u{202E}"]

  /// JSON nested `depth` levels deep: `[[[…]]]`, or `{"a":{"a":…}}` when `objects`.
  static func nested(depth: Int, objects: Bool = false) -> String {
    objects
      ? String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
      : String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
  }

  static func encode(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }

  // MARK: Compact JWS

  /// Truncations, character substitutions and decoded-bit flips in each part, rearranged parts, and
  /// replaced headers, payloads and signatures (huge, nested, unsigned, all-zero), of `token`. None
  /// equals `token`.
  static func compactJWS(_ token: String, seed: UInt64) -> [Mutation] {
    var random = SplitMix64(seed: seed)
    let characters = Array(token)
    let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    precondition(parts.count == 3, "a compact JWS has three parts")
    let (header, payload, signature) = (parts[0], parts[1], parts[2])
    var mutations: [Mutation] = []
    func add(_ label: String, _ text: String) {
      if text != token { mutations.append(Mutation(label: label, text: text)) }
    }

    // Truncations: about a hundred prefixes, every part boundary among them, and suffixes.
    var lengths = Set(stride(from: 0, to: characters.count, by: max(1, characters.count / 100)))
    for boundary in [header.count, header.count + 1, header.count + payload.count + 1] {
      lengths.formUnion([boundary - 1, boundary, boundary + 1])
    }
    lengths.formUnion([characters.count - 1, characters.count - 2, characters.count - 3])
    for length in lengths.sorted() where (0..<characters.count).contains(length) {
      add("first \(length) characters", String(characters.prefix(length)))
    }
    for dropped in [1, 2, 3, 4, header.count, header.count + 1] {
      add("without the first \(dropped) characters", String(characters.dropFirst(dropped)))
    }

    // Character substitutions and decoded-bit flips, in each part.
    for (index, part) in parts.enumerated() {
      let name = ["header", "payload", "signature"][index]
      var chars = Array(part)
      guard !chars.isEmpty else { continue }
      for _ in 0..<25 {
        let position = Int.random(in: 0..<chars.count, using: &random)
        let original = chars[position]
        let replacement =
          Bool.random(using: &random)
          ? base64URLAlphabet.filter { $0 != original }.randomElement(using: &random)!
          : foreignCharacters.randomElement(using: &random)!
        chars[position] = replacement
        var rebuilt = parts
        rebuilt[index] = String(chars)
        add(
          "\(name) character \(position) replaced by U+\(String(replacement.unicodeScalars.first!.value, radix: 16))",
          rebuilt.joined(separator: "."))
        chars[position] = original
      }
      guard var bytes = try? Base64URL.decode(part), !bytes.isEmpty else { continue }
      for _ in 0..<20 {
        let position = Int.random(in: 0..<bytes.count, using: &random)
        let bit = UInt8(1) << UInt8.random(in: 0..<8, using: &random)
        bytes[position] ^= bit
        var rebuilt = parts
        rebuilt[index] = Base64URL.encode(bytes)
        add("\(name) byte \(position) xor \(bit)", rebuilt.joined(separator: "."))
        bytes[position] ^= bit
      }
    }

    // Parts swapped, repeated, missing or added.
    let arrangements: [(String, [String])] = [
      ("payload.header.signature", [payload, header, signature]),
      ("header.signature.payload", [header, signature, payload]),
      ("signature.payload.header", [signature, payload, header]),
      ("payload.signature.header", [payload, signature, header]),
      ("signature.header.payload", [signature, header, payload]),
      ("header.header.signature", [header, header, signature]),
      ("payload.payload.signature", [payload, payload, signature]),
      ("header.payload.payload", [header, payload, payload]),
      ("header.payload", [header, payload]),
      ("header.payload.signature.signature", [header, payload, signature, signature]),
      ("header.payload.signature.", [header, payload, signature, ""]),
      (".payload.signature", ["", payload, signature]),
      ("header..signature", [header, "", signature]),
      ("header.payload.", [header, payload, ""]),
      ("..", ["", "", ""]),
    ]
    for (label, arrangement) in arrangements { add(label, arrangement.joined(separator: ".")) }
    add("empty", "")
    add("leading space", " " + token)
    add("trailing newline", token + "\n")
    add("Bearer prefix", "Bearer " + token)
    add("percent-encoded dots", token.replacingOccurrences(of: ".", with: "%2E"))

    // Signatures of the wrong size or all zero (ECDSA r = s = 0, CVE-2022-21449).
    let signatureSize = (try? Base64URL.decode(signature).count) ?? 64
    for size in [0, 1, signatureSize - 1, signatureSize, signatureSize + 1, 2 * signatureSize] where size >= 0 {
      add(
        "signature of \(size) zero bytes",
        header + "." + payload + "." + Base64URL.encode([UInt8](repeating: 0, count: size)))
    }
    add(
      "signature of \(signatureSize) 0xFF bytes",
      header + "." + payload + "." + Base64URL.encode([UInt8](repeating: 0xFF, count: signatureSize)))

    // Headers replaced (the signature no longer covers them).
    let headerJSON = (try? JSONValue(parsing: Base64URL.decode(header)))?.objectValue ?? [:]
    let keyID = headerJSON["kid"]?.stringValue ?? "none"
    let headers: [(String, String)] = [
      ("alg none", #"{"alg":"none"}"#),
      ("alg none with kid", #"{"alg":"none","kid":"\#(keyID)"}"#),
      ("alg NONE", #"{"alg":"NONE","kid":"\#(keyID)"}"#),
      ("alg HS256", #"{"alg":"HS256","kid":"\#(keyID)"}"#),
      ("alg RS256", #"{"alg":"RS256","kid":"\#(keyID)"}"#),
      ("alg ES512", #"{"alg":"ES512","kid":"\#(keyID)"}"#),
      ("alg lower case", #"{"alg":"es256","kid":"\#(keyID)"}"#),
      ("alg not a string", #"{"alg":256,"kid":"\#(keyID)"}"#),
      ("no alg", #"{"kid":"\#(keyID)"}"#),
      ("kid unknown", #"{"alg":"ES256","kid":"no-such-key"}"#),
      ("kid not a string", #"{"alg":"ES256","kid":["\#(keyID)"]}"#),
      ("crit unknown", #"{"alg":"ES256","kid":"\#(keyID)","crit":["exp"]}"#),
      ("crit empty", #"{"alg":"ES256","kid":"\#(keyID)","crit":[]}"#),
      ("b64 false", #"{"alg":"ES256","kid":"\#(keyID)","b64":false,"crit":["b64"]}"#),
      ("typ at+jwt", #"{"alg":"ES256","kid":"\#(keyID)","typ":"at+jwt"}"#),
      ("duplicate alg", #"{"alg":"ES256","alg":"none","kid":"\#(keyID)"}"#),
      ("jku and x5u", #"{"alg":"ES256","jku":"https://attacker.xid.test/jwks","x5u":"https://attacker.xid.test/c"}"#),
      ("embedded jwk", #"{"alg":"ES256","jwk":{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}}"#),
      ("array", "[]"),
      ("null", "null"),
      ("string", #""ES256""#),
      ("empty object", "{}"),
      ("not JSON", "alg=ES256"),
      ("trailing garbage", #"{"alg":"ES256","kid":"\#(keyID)"}x"#),
      ("nested 65 arrays", #"{"alg":"ES256","x":\#(nested(depth: 65))}"#),
      ("nested 10000 arrays", nested(depth: 10_000)),
      ("nested 10000 objects", nested(depth: 10_000, objects: true)),
      ("huge", #"{"alg":"ES256","x":""# + String(repeating: "A", count: 70_000) + #""}"#),
      ("invalid UTF-8", String(decoding: [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D], as: UTF8.self)),
    ]
    for (label, json) in headers { add("header: \(label)", encode(json) + "." + payload + "." + signature) }
    add(
      "header: invalid UTF-8 bytes",
      Base64URL.encode([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D]) + "." + payload + "." + signature)

    // Payloads replaced (the signature no longer covers them).
    let payloads: [(String, String)] = [
      ("array", "[]"), ("null", "null"), ("number", "1e400"), ("empty", ""),
      ("nested 10000 arrays", nested(depth: 10_000)),
      ("nested 10000 objects", nested(depth: 10_000, objects: true)),
      ("huge", #"{"x":""# + String(repeating: "A", count: 70_000) + #""}"#),
    ]
    for (label, json) in payloads { add("payload: \(label)", header + "." + encode(json) + "." + signature) }
    return mutations
  }

  // MARK: Redirect URL

  /// Truncations of `url` at every position, character substitutions everywhere but inside the `code`
  /// value (a different code is a valid-looking response, refused by the token endpoint instead),
  /// swapped, repeated, dropped, emptied and huge parameters. Every one either is no URL or must be
  /// refused by the redirect parser.
  static func redirect(_ url: String, code: String) -> [Mutation] {
    var mutations: [Mutation] = []
    func add(_ label: String, _ text: String) {
      if text != url { mutations.append(Mutation(label: label, text: text)) }
    }
    let characters = Array(url)
    for length in 0..<characters.count { add("first \(length) characters", String(characters.prefix(length))) }

    // Flips that turn a character into a different one: never 0x20, which only changes letter case
    // (scheme, host and percent-escape hex digits compare case-insensitively, so that would be the
    // same redirect).
    let codeRange = url.range(of: "code=" + code).map {
      let start = url.distance(from: url.startIndex, to: $0.lowerBound) + 5
      return start..<(start + code.count)
    }
    let masks: [UInt8] = [0x01, 0x02, 0x04, 0x08, 0x10, 0x40]
    for (position, character) in characters.enumerated() where codeRange?.contains(position) != true {
      guard let ascii = character.asciiValue else { continue }
      for mask in [masks[position % masks.count], masks[(position + 3) % masks.count]] {
        var flipped = characters
        flipped[position] = Character(Unicode.Scalar(ascii ^ mask))
        add("character \(position) xor \(mask)", String(flipped))
      }
    }

    guard let components = URLComponents(string: url), let query = components.percentEncodedQuery else {
      return mutations
    }
    let base = url.prefix { $0 != "?" }
    let pairs = query.split(separator: "&").map { pair -> (String, String) in
      let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
      return (parts[0], parts.count > 1 ? parts[1] : "")
    }
    func build(_ pairs: [(String, String)]) -> String {
      base + "?" + pairs.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }
    let names = pairs.map(\.0)
    for (index, (name, value)) in pairs.enumerated() {
      var without = pairs
      without.remove(at: index)
      add("without \(name)", build(without))
      add("\(name) twice", build(pairs + [(name, value)]))
      if name != "code" {
        add("\(name) repeated with another value", build(pairs + [(name, value + "x")]))
        var emptied = pairs
        emptied[index].1 = ""
        add("\(name) empty", build(emptied))
        var renamed = pairs
        renamed[index].0 = name.uppercased()
        add("\(name) in upper case", build(renamed))
        var doubled = pairs
        doubled[index].1 = value.replacingOccurrences(of: "%", with: "%25")
        add("\(name) encoded twice", build(doubled))
        var nested = pairs
        nested[index].0 = "\(name)[\(name)]"
        add("\(name) nested", build(nested))
        var huge = pairs
        huge[index].1 = String(repeating: "A", count: 1 << 20)
        add("\(name) of 1 MiB", build(huge))
        var prefixed = pairs
        prefixed[index].1 = value + value
        add("\(name) doubled", build(prefixed))
      }
      for (otherIndex, otherName) in names.enumerated() where otherIndex > index {
        var swapped = pairs
        swapped[index].1 = pairs[otherIndex].1
        swapped[otherIndex].1 = value
        add("values of \(name) and \(otherName) swapped", build(swapped))
        var renamed = pairs
        renamed[index].0 = otherName
        renamed[otherIndex].0 = name
        if otherName != "code" && name != "code" { add("names \(name) and \(otherName) swapped", build(renamed)) }
      }
    }
    add("query in the fragment", base + "#" + query)
    add("query in the fragment and an empty query", base + "?#" + query)
    add("10000 states", build(pairs + Array(repeating: ("state", "x"), count: 10_000)))
    add("path of 100 KiB", base + String(repeating: "/a", count: 50_000) + "?" + query)
    add("another scheme", url.replacingOccurrences(of: "com.example.app:", with: "com.attacker.app:"))
    add("https redirect", url.replacingOccurrences(of: "com.example.app:/", with: "https://app.example.com/"))
    add(
      "error instead of code",
      build(pairs.filter { $0.0 != "code" } + [("error", "access_denied"), ("error_description", "no")]))
    add(
      "error with a huge, hostile description",
      build(
        pairs.filter { $0.0 != "code" } + [
          ("error", "server_error"),
          ("error_description", String(repeating: "%E2%80%AE%00%0A", count: 20_000)),
        ]))
    add("error beside the code", build(pairs + [("error", "access_denied")]))
    return mutations
  }
}
