// XidBenchmarks: how fast Xid verifies an OpenID Connect ID token, end to end.
//
// For each algorithm (ES256, RS256, PS256, EdDSA) a key is generated and a realistic ID token is
// signed with it; the JWK Set, the allowed algorithms and the expected values are prepared once, as a
// client prepares them after fetching the provider's `jwks_uri`. Then, single-threaded, three things
// are timed with ContinuousClock for a fixed duration after a warm-up:
//
//   verify  the full verification a client does per ID token: base64url, header and claims JSON,
//           key selection, signature, `exp`/`iat` against the clock, and `iss`, `aud`, `azp`, `nonce`
//           compared with the expected values (a mismatch aborts the benchmark);
//   parse   the same work without the signature: `CompactJWS(parsing:)` then `JWTClaims(payload:)`;
//   sig     the signature check alone, `CompactJWS.verify(using:allowedAlgorithms:)` on a token
//           parsed beforehand (key selection, SHA-256 and the OpenSSL verification).
//
// Output: one parseable line per algorithm on stdout, everything else on stderr:
//
//   xid ES256 verify_ops_per_s=… us_per_op=… parse_us=… sig_us=… token_bytes=… iterations=…
//
// Usage: XidBenchmarks [--seconds S] [--warmup S] [--algorithms ES256,RS256,…] [--iterations N]
//
//   --seconds S      how long each timed phase runs per algorithm (default 2)
//   --warmup S       warm-up before each phase (default 0.5)
//   --algorithms L   comma-separated subset (default all four)
//   --iterations N   run exactly N full verifications per algorithm instead of a timed run, and
//                    skip the parse and sig phases (for profilers such as callgrind)

import Foundation
import XidJOSE

// MARK: - Options

struct Options {
  var seconds = 2.0
  var warmup = 0.5
  var algorithms: [JWSAlgorithm] = [.es256, .rs256, .ps256, .edDSA]
  var iterations: Int? = nil

  static func parse(_ arguments: [String]) -> Options {
    var options = Options()
    var index = 0
    func value(_ name: String) -> String {
      index += 1
      guard index < arguments.count else { usage("\(name) needs a value") }
      return arguments[index]
    }
    while index < arguments.count {
      let argument = arguments[index]
      switch argument {
      case "--seconds":
        guard let seconds = Double(value(argument)), seconds > 0 else { usage("--seconds needs a positive number") }
        options.seconds = seconds
      case "--warmup":
        guard let warmup = Double(value(argument)), warmup >= 0 else { usage("--warmup needs a number ≥ 0") }
        options.warmup = warmup
      case "--algorithms":
        let names = value(argument).split(separator: ",").map(String.init)
        var algorithms: [JWSAlgorithm] = []
        for name in names {
          guard let algorithm = JWSAlgorithm(rawValue: name) else { usage("unknown algorithm \(name)") }
          algorithms.append(algorithm)
        }
        guard !algorithms.isEmpty else { usage("--algorithms needs at least one algorithm") }
        options.algorithms = algorithms
      case "--iterations":
        guard let iterations = Int(value(argument)), iterations > 0 else { usage("--iterations needs a positive integer") }
        options.iterations = iterations
      case "-h", "--help":
        printError("usage: XidBenchmarks [--seconds S] [--warmup S] [--algorithms ES256,RS256,PS256,EdDSA] [--iterations N]")
        exit(0)
      default:
        usage("unknown argument \(argument)")
      }
      index += 1
    }
    return options
  }
}

func printError(_ message: String) {
  FileHandle.standardError.write(Data((message + "\n").utf8))
}

func usage(_ message: String) -> Never {
  printError("XidBenchmarks: \(message) (see --help)")
  exit(2)
}

struct BenchmarkFailure: Error, CustomStringConvertible {
  let description: String
}

// MARK: - Keeping results alive

/// Every timed operation feeds a value derived from its result in here, and the total is printed at
/// the end, so the optimiser cannot drop any of the work.
nonisolated(unsafe) var sink = 0

@inline(never)
func blackHole(_ value: Int) {
  sink &+= value
}

// MARK: - The token

/// What the client expects of the token, prepared once.
struct Expectations {
  let issuer: String
  let clientID: String
  let nonce: String
  let leeway: TimeInterval = 60
  let allowedAlgorithms: Set<JWSAlgorithm> = [.es256, .rs256, .ps256, .edDSA]
}

/// An ID token shaped like a large provider's: the OpenID Connect claims plus the usual profile ones.
func makeIDToken(key: JWSSigningKey, expectations: Expectations) throws -> String {
  let now = Int64(Date().timeIntervalSince1970)
  let claims: [String: JSONValue] = [
    "iss": .string(expectations.issuer),
    "sub": "110169484474386276334",
    "aud": .string(expectations.clientID),
    "azp": .string(expectations.clientID),
    "exp": .int(now + 3600),
    "iat": .int(now),
    "auth_time": .int(now - 45),
    "nonce": .string(expectations.nonce),
    "at_hash": "HK6E_P6Dh8Y93mRNtsDB1Q",
    "name": "Jane Q. Example",
    "given_name": "Jane",
    "family_name": "Example",
    "email": "jane.q.example@example.com",
    "email_verified": true,
    "locale": "en",
    "picture": "https://profiles.example.com/a/ACg8ocKxv3X9qH2tXf1oW7kYp4aZr5sN0cLm8dQe6jT2uVb=s96-c",
  ]
  return try key.sign(claims: claims, header: ["typ": "JWT"])
}

/// The full verification a client does for each ID token.
@inline(__always)
func verifyIDToken(_ token: String, keySet: JWKSet, expectations: Expectations) throws -> SignedJWT {
  let jwt = try SignedJWT(verifying: token, using: keySet, allowedAlgorithms: expectations.allowedAlgorithms)
  let claims = jwt.claims
  try claims.validateTimes(now: Date(), leeway: expectations.leeway)
  guard claims.issuer == expectations.issuer else { throw BenchmarkFailure(description: "iss does not match") }
  guard claims.audience.contains(expectations.clientID) else { throw BenchmarkFailure(description: "aud does not match") }
  guard claims.audience.count == 1 || claims.authorizedParty == expectations.clientID else {
    throw BenchmarkFailure(description: "azp does not match")
  }
  guard claims.nonce == expectations.nonce else { throw BenchmarkFailure(description: "nonce does not match") }
  return jwt
}

// MARK: - Timing

struct Measurement {
  let iterations: Int
  let elapsed: Duration

  var seconds: Double {
    let (s, attoseconds) = elapsed.components
    return Double(s) + Double(attoseconds) * 1e-18
  }
  var opsPerSecond: Double { Double(iterations) / seconds }
  var microsecondsPerOp: Double { seconds * 1e6 / Double(iterations) }
}

/// Runs `body` repeatedly for `seconds` (after `warmup` seconds of untimed runs). The clock is read
/// once per batch of `batch` calls, so its cost does not count for fast operations.
func measure(seconds: Double, warmup: Double, batch: Int = 8, _ body: () throws -> Void) rethrows -> Measurement {
  let clock = ContinuousClock()
  if warmup > 0 {
    let warmupEnd = clock.now.advanced(by: .milliseconds(Int64(warmup * 1000)))
    repeat {
      for _ in 0..<batch { try body() }
    } while clock.now < warmupEnd
  }
  let start = clock.now
  let deadline = start.advanced(by: .milliseconds(Int64(seconds * 1000)))
  var iterations = 0
  var now = start
  repeat {
    for _ in 0..<batch { try body() }
    iterations += batch
    now = clock.now
  } while now < deadline
  return Measurement(iterations: iterations, elapsed: now - start)
}

func measure(iterations: Int, _ body: () throws -> Void) rethrows -> Measurement {
  let clock = ContinuousClock()
  let start = clock.now
  for _ in 0..<iterations { try body() }
  return Measurement(iterations: iterations, elapsed: clock.now - start)
}

func format(_ value: Double, _ decimals: Int) -> String {
  String(format: "%.\(decimals)f", value)
}

// MARK: - Main

func run() throws {
  let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
  let expectations = Expectations(
    issuer: "https://accounts.example.com",
    clientID: "407408718192-9qk1vhp6c6ot4r3s6qbe1u5a0m5gk3nh.apps.example.com",
    nonce: "n-0S6_WzA2Mj-hTQ3yJm9cUeLxV4kq7RzN1pFo8sDgY"
  )
  printError(
    "# Xid ID-token verification, single-threaded; "
      + (options.iterations.map { "\($0) iterations per algorithm" }
        ?? "\(options.seconds) s per phase after \(options.warmup) s warm-up"))

  for algorithm in options.algorithms {
    // Prepared once, outside the timed code: the key, the provider's JWK Set and the token.
    let signingKey = try JWSSigningKey.generate(for: algorithm)
    let keySet = JWKSet(keys: [try signingKey.verificationKey()])
    let token = try makeIDToken(key: signingKey, expectations: expectations)
    _ = try verifyIDToken(token, keySet: keySet, expectations: expectations)  // fails loudly if broken

    if let iterations = options.iterations {
      let full = try measure(iterations: iterations) {
        let jwt = try verifyIDToken(token, keySet: keySet, expectations: expectations)
        blackHole(jwt.claims.raw.count &+ jwt.jws.payload.count)
      }
      print(
        "xid \(algorithm.rawValue) verify_ops_per_s=\(format(full.opsPerSecond, 1))"
          + " us_per_op=\(format(full.microsecondsPerOp, 2)) token_bytes=\(token.utf8.count)"
          + " iterations=\(full.iterations)")
      continue
    }

    let full = try measure(seconds: options.seconds, warmup: options.warmup) {
      let jwt = try verifyIDToken(token, keySet: keySet, expectations: expectations)
      blackHole(jwt.claims.raw.count &+ jwt.jws.payload.count)
    }
    let parse = try measure(seconds: options.seconds, warmup: options.warmup, batch: 64) {
      let jws = try CompactJWS(parsing: token)
      let claims = try JWTClaims(payload: jws.payload)
      blackHole(claims.raw.count &+ jws.payload.count)
    }
    let parsed = try CompactJWS(parsing: token)
    let signature = try measure(seconds: options.seconds, warmup: options.warmup) {
      let key = try parsed.verify(using: keySet, allowedAlgorithms: expectations.allowedAlgorithms)
      blackHole(key.keyID?.utf8.count ?? 0)
    }
    print(
      "xid \(algorithm.rawValue) verify_ops_per_s=\(format(full.opsPerSecond, 1))"
        + " us_per_op=\(format(full.microsecondsPerOp, 2))"
        + " parse_us=\(format(parse.microsecondsPerOp, 3))"
        + " sig_us=\(format(signature.microsecondsPerOp, 2))"
        + " token_bytes=\(token.utf8.count) iterations=\(full.iterations)")
    fflush(nil)
  }
  printError("# checksum \(sink)")
}

do {
  try run()
} catch {
  printError("XidBenchmarks: FAILED: \(error)")
  exit(1)
}
