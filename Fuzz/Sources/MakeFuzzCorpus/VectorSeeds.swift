import Foundation
import Xid

/// Seeds from the public test vectors (`../shared/vectors` or `$XID_TEST_VECTORS`): the RFC 7520
/// cookbook and RFC 8037 examples, and Project Wycheproof's JOSE files.
enum VectorSeeds {
  /// How many compact JWS to take from a Wycheproof test group, to keep the corpus small: more of
  /// the groups whose keys FuzzJWS verifies with.
  private static func testsPerGroup(_ comment: String) -> Int {
    switch comment {
    case "es256", "SpecialCaseEs256": 8
    case "rs256", "ps256", "base64": 4
    default: 1
    }
  }

  /// The private halves of the ES256 and Ed25519 keys of `FixedKeys`, to sign tokens FuzzJWS's
  /// fixed keys verify.
  static func fixedSigningKeys(from vectors: URL) throws -> [JWSSigningKey] {
    var keys: [JWSSigningKey] = []
    let wycheproof = try json(vectors, "wycheproof/json_web_signature_test.json")
    if let es256 = wycheproof["testGroups"]?.arrayValue?.first(where: { $0["comment"] == "es256" })?["private"] {
      keys.append(try JWSSigningKey(privateJWK: es256))
    }
    if case .object(var ed25519)? = try json(vectors, "jose-cookbook/jws/curve25519_jws.json")["input"]?["key"] {
      ed25519["kid"] = "rfc8037-ed25519"
      keys.append(try JWSSigningKey(privateJWK: .object(ed25519)))
    }
    return keys
  }

  static func write(to corpus: inout Corpus, from vectors: URL) throws {
    // Cookbook keys (public and private) and signatures.
    for file in try files(vectors, "jose-cookbook/jwk") {
      corpus.add("cookbook-jwk-\(stem(file))", try Data(contentsOf: file), for: .jwk)
    }
    for file in try files(vectors, "jose-cookbook/jws") {
      let example = try JSONValue(parsing: Data(contentsOf: file))
      if let compact = example["output"]?["compact"]?.stringValue {
        corpus.add("cookbook-jws-\(stem(file))", compact.utf8, for: .jws)
      }
      if let protected = example["signing"]?["protected"] {
        corpus.addJSON("cookbook-jws-header-\(stem(file))", protected.serializedBytes())
      }
      if let key = example["input"]?["key"] {
        corpus.add("cookbook-jwk-private-\(stem(file))", key.serializedBytes(), for: .jwk)
      }
    }

    // Wycheproof: compact JWS of the groups whose keys FuzzJWS has, and every key of the JWK tests.
    let signatures = try json(vectors, "wycheproof/json_web_signature_test.json")
    for (index, group) in (signatures["testGroups"]?.arrayValue ?? []).enumerated() {
      let comment = group["comment"]?.stringValue ?? "group"
      let compact = (group["tests"]?.arrayValue ?? []).filter {
        guard let jws = $0["jws"]?.stringValue else { return false }
        return !jws.hasPrefix("{")
      }
      for test in compact.prefix(testsPerGroup(comment)) {
        guard let jws = test["jws"]?.stringValue, let id = test["tcId"]?.int64Value else { continue }
        corpus.add("wycheproof-jws-\(comment)-\(id)", jws.utf8, for: .jws)
      }
      if let key = group["public"] {
        corpus.add("wycheproof-jws-key-\(index)-\(comment)", key.serializedBytes(), for: .jwk)
      }
    }
    let keyTests = try json(vectors, "wycheproof/json_web_key_test.json")
    var comments = Set<String>()
    for (index, group) in (keyTests["testGroups"]?.arrayValue ?? []).enumerated() {
      // One group of each kind (the HS* groups differ only in their secrets).
      let comment = group["comment"]?.stringValue ?? "group"
      guard comments.insert(comment).inserted else { continue }
      for member in ["public", "private"] {
        if let key = group[member] {
          corpus.add("wycheproof-jwk-\(index)-\(comment)-\(member)", key.serializedBytes(), for: .jwk)
        }
      }
    }
  }

  private static func json(_ vectors: URL, _ path: String) throws -> JSONValue {
    try JSONValue(parsing: Data(contentsOf: vectors.appendingPathComponent(path)))
  }

  private static func files(_ vectors: URL, _ path: String) throws -> [URL] {
    try FileManager.default.contentsOfDirectory(
      at: vectors.appendingPathComponent(path), includingPropertiesForKeys: nil
    ).filter { $0.pathExtension == "json" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
  }

  private static func stem(_ file: URL) -> String {
    String(file.deletingPathExtension().lastPathComponent.prefix { $0 != "." })
  }
}
