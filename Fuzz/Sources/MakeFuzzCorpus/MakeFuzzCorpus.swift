import Foundation
import Xid
import XidTesting

/// Writes the seed corpora of the fuzz targets from real outputs: what XidTesting's provider sends
/// in a whole code flow (discovery, JWKS, token responses, ID tokens, UserInfo, errors, and its
/// hostile ID tokens), the same ID tokens signed again with the fixed keys FuzzJWS verifies with,
/// RFC 7520 / RFC 8037 cookbook examples and Project Wycheproof JOSE vectors when the vectors are
/// available, and a few hand-written edge cases of JSON.
///
/// Usage: `MakeFuzzCorpus OUTPUT-DIR [VECTORS-DIR]` (scripts/make-fuzz-corpus.sh runs it). Each
/// target's directory is emptied and written again. Prints counts only, never a token or a key.
@main
struct MakeFuzzCorpus {
  static func main() async throws {
    let arguments = CommandLine.arguments
    guard arguments.count >= 2 else {
      FileHandle.standardError.write(Data("usage: MakeFuzzCorpus OUTPUT-DIR [VECTORS-DIR]\n".utf8))
      exit(2)
    }
    var corpus = Corpus(root: URL(fileURLWithPath: arguments[1]))
    let vectors = arguments.dropFirst(2).first.map { URL(fileURLWithPath: $0) }.flatMap {
      FileManager.default.fileExists(atPath: $0.path) ? $0 : nil
    }
    try await ProviderSeeds.write(to: &corpus, vectors: vectors)
    if let vectors {
      try VectorSeeds.write(to: &corpus, from: vectors)
    } else {
      print("no test vectors: cookbook and Wycheproof seeds left out, and no token signed with the fixed keys")
    }
    EdgeSeeds.write(to: &corpus)
    try await DPoPSeeds.write(to: &corpus)
    try corpus.save()
  }
}

/// The fuzz targets whose corpora are made here.
enum Target: String, CaseIterable {
  case json = "FuzzJSON"
  case differential = "FuzzJSONDifferential"
  case jws = "FuzzJWS"
  case jwk = "FuzzJWK"
  case discovery = "FuzzDiscovery"
  case tokenResponse = "FuzzTokenResponse"
  case tokenExchangeResponse = "FuzzTokenExchangeResponse"
  case authorizationResponse = "FuzzAuthorizationResponse"
  case httpRequestHead = "FuzzHTTPRequestHead"
  case wwwAuthenticate = "FuzzWWWAuthenticate"
  case tokenRecord = "FuzzTokenRecord"
  case familyRecord = "FuzzFamilyRecord"
  case dpopNonce = "FuzzDPoPNonce"
  case authorizationDetails = "FuzzAuthorizationDetails"
}

/// The seeds of every target, written to disk at the end.
struct Corpus {
  let root: URL
  private var files: [Target: [(name: String, bytes: [UInt8])]] = [:]

  init(root: URL) { self.root = root }

  /// Adds a seed for `targets` under `name` (a descriptive file name); the same bytes are kept once.
  mutating func add(_ name: String, _ bytes: some Sequence<UInt8>, for targets: Target...) {
    let bytes = Array(bytes)
    for target in targets where !(files[target] ?? []).contains(where: { $0.bytes == bytes }) {
      files[target, default: []].append((name, bytes))
    }
  }

  /// Adds a JSON seed for both JSON targets.
  mutating func addJSON(_ name: String, _ bytes: some Sequence<UInt8>) {
    add(name, bytes, for: .json, .differential)
  }

  /// Empties each target's directory and writes its seeds.
  func save() throws {
    let manager = FileManager.default
    for target in Target.allCases {
      let directory = root.appendingPathComponent(target.rawValue)
      try? manager.removeItem(at: directory)
      try manager.createDirectory(at: directory, withIntermediateDirectories: true)
      let seeds = files[target] ?? []
      var names = Set<String>()
      for (name, bytes) in seeds {
        var unique = name
        var suffix = 2
        while !names.insert(unique).inserted {
          unique = "\(name)-\(suffix)"
          suffix += 1
        }
        try Data(bytes).write(to: directory.appendingPathComponent(unique))
      }
      print("\(target.rawValue): \(seeds.count) seeds, \(seeds.reduce(0) { $0 + $1.bytes.count }) bytes")
    }
  }
}

/// Seeds from XidTesting's provider.
enum ProviderSeeds {
  static let now = Date(timeIntervalSince1970: 1_800_000_000)
  static let redirectURI = "com.example.app:/callback"

  static func write(to corpus: inout Corpus, vectors: URL?) async throws {
    let fixedKeys = try vectors.map(VectorSeeds.fixedSigningKeys) ?? []
    for algorithm in JWSAlgorithm.allCases {
      var configuration = TestProvider.Configuration()
      configuration.signingAlgorithm = algorithm
      configuration.includesCodeHash = algorithm == .es256
      configuration.includesScopeClaimsInIDToken = algorithm == .rs256
      let provider = try TestProvider(configuration: configuration, clock: TestClock(now: now))
      let name = algorithm.rawValue.lowercased()

      let discovery = try await get(provider, .discovery)
      corpus.addJSON("provider-discovery-\(name)", discovery)
      corpus.add("provider-discovery-\(name)", discovery, for: .discovery)
      if algorithm == .es256 {
        corpus.add("provider-resource-metadata", try await get(provider, .resourceMetadata), for: .discovery)
      }
      let jwks = try await get(provider, .jwks)
      corpus.addJSON("provider-jwks-\(name)", jwks)
      corpus.add("provider-jwks-\(name)", jwks, for: .jwk)
      for (index, key) in (try JSONValue(parsing: jwks)["keys"]?.arrayValue ?? []).enumerated() {
        corpus.add("provider-jwk-\(name)-\(index)", key.serializedBytes(), for: .jwk)
      }

      let (tokens, callback) = try await signIn(provider)
      corpus.addJSON("provider-token-response-\(name)", tokens)
      corpus.add("provider-token-response-\(name)", tokens, for: .tokenResponse)
      let errorResponse = try await badExchange(provider)
      corpus.addJSON("provider-error-response-\(name)", errorResponse)
      corpus.add("provider-error-response-\(name)", errorResponse, for: .tokenResponse)
      RedirectSeeds.write(callback: callback, name: name, to: &corpus)
      let json = try JSONValue(parsing: tokens)
      corpus.add("record-from-token-response-\(name)", RedirectSeeds.record(from: json), for: .tokenRecord)
      corpus.add("record-with-every-member-\(name)", RedirectSeeds.recordWithEveryMember(from: json), for: .tokenRecord)
      if let accessToken = json["access_token"]?.stringValue {
        corpus.addJSON("provider-userinfo-\(name)", try await get(provider, .userInfo, bearer: accessToken))
      }
      if algorithm == .es256 {
        // The challenge of a refused access token.
        var request = HTTPRequest(url: provider.url(for: .userInfo))
        request.headers["Authorization"] = "Bearer not-a-token"
        if let challenge = try await provider.transport.send(request).headers["WWW-Authenticate"] {
          corpus.add("provider-userinfo-challenge", challenge.utf8, for: .wwwAuthenticate)
        }
      }
      guard let idToken = json["id_token"]?.stringValue else { continue }
      corpus.add("provider-id-token-\(name)", idToken.utf8, for: .jws)
      let jws = try CompactJWS(parsing: idToken)
      corpus.addJSON("provider-id-token-header-\(name)", try headerJSON(of: idToken))
      corpus.addJSON("provider-id-token-claims-\(name)", jws.payload)
      // The same header and claims, signed by the keys FuzzJWS verifies with.
      for key in fixedKeys {
        var header = jws.header.members
        header["kid"] = nil
        corpus.add(
          "fixed-\(key.algorithm.rawValue.lowercased())-id-token-from-\(name)",
          try key.sign(jws.payload, header: header).utf8, for: .jws)
      }

      // Hostile ID tokens (ES256 only: the misbehaviour does not depend on the algorithm).
      guard algorithm == .es256 else { continue }
      let hostile: [(String, TestProvider.Misbehavior)] = [
        ("unsigned", .unsignedIDToken), ("bad-signature", .invalidSignature), ("no-kid", .missingKeyID),
        ("expired", .expiredIDToken), ("future", .issuedInFuture), ("no-iat", .missingIssuedAt),
      ]
      for (label, misbehavior) in hostile {
        try await provider.misbehave(misbehavior, .once)
        let (response, _) = try await signIn(provider)
        if let token = try JSONValue(parsing: response)["id_token"]?.stringValue {
          corpus.add("provider-id-token-\(label)", token.utf8, for: .jws)
        }
      }
    }
  }

  /// The header's JSON as the token carries it.
  private static func headerJSON(of token: String) throws -> [UInt8] {
    try Base64URL.decode(token.prefix { $0 != "." })
  }

  private static func get(
    _ provider: TestProvider, _ endpoint: TestProvider.Endpoint, bearer: String? = nil
  ) async throws -> [UInt8] {
    var request = HTTPRequest(url: provider.url(for: endpoint))
    if let bearer { request.headers["Authorization"] = "Bearer \(bearer)" }
    return Array(try await provider.transport.send(request).body)
  }

  /// A whole authorization code flow with PKCE; the token endpoint's response and the redirect.
  private static func signIn(_ provider: TestProvider) async throws -> (tokens: [UInt8], callback: URL) {
    let (code, callback) = try await authorize(provider)
    let response = try await provider.transport.send(codeExchange(provider, code: code))
    return (Array(response.body), callback)
  }

  /// The PKCE verifier of every authorization request here.
  private static let verifier = Base64URL.encode(XidCrypto.sha256(Array("xid-fuzz-corpus".utf8)))

  /// An authorization request with PKCE through the provider's browser: its code and the redirect.
  static func authorize(_ provider: TestProvider) async throws -> (code: String, callback: URL) {
    let challenge = Base64URL.encode(XidCrypto.sha256(Array(verifier.utf8)))
    let authorization = provider.url(for: .authorization).appendingQuery([
      ("response_type", "code"), ("client_id", "xid-example"), ("redirect_uri", redirectURI),
      ("scope", "openid profile email offline_access"), ("state", "state-1"), ("nonce", "nonce-1"),
      ("code_challenge", challenge), ("code_challenge_method", "S256"),
    ])
    let callback = try await provider.browser.redirect(from: authorization)
    guard let code = callback.queryParameters.first(where: { $0.0 == "code" })?.1 else {
      throw XidError(.invalidJSON, "the provider redirected without a code")
    }
    return (code, callback)
  }

  /// The token request that exchanges `code` (from ``authorize(_:)``).
  static func codeExchange(_ provider: TestProvider, code: String) -> HTTPRequest {
    .form(
      provider.url(for: .token),
      [
        ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
        ("client_id", "xid-example"), ("code_verifier", verifier),
      ])
  }

  /// The token endpoint's error response to a code it never issued.
  private static func badExchange(_ provider: TestProvider) async throws -> [UInt8] {
    let response = try await provider.transport.send(
      .form(
        provider.url(for: .token),
        [
          ("grant_type", "authorization_code"), ("code", "not-a-code"), ("redirect_uri", redirectURI),
          ("client_id", "xid-example"), ("code_verifier", String(repeating: "v", count: 43)),
        ]))
    return Array(response.body)
  }
}
