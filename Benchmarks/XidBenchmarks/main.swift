// XidBenchmarks: how fast Xid verifies an OpenID Connect ID token, end to end.
//
// For each algorithm (ES256, RS256, PS256, EdDSA) a key is generated and a realistic ID token is
// signed with it; the JWK Set, the allowed algorithms and the expected values are prepared once, as a
// client prepares them after fetching the provider's `jwks_uri`. Then, single-threaded, three things
// are timed with ContinuousClock for a fixed duration after a warm-up:
//
//   verify  the full verification a client does per ID token: base64url, header and claims JSON,
//           key selection, signature, `exp`/`iat` against the clock, and `iss`, `aud`, `azp`, `nonce`
//           compared with the expected values (a mismatch aborts the benchmark). Where libcrypto is
//           Xid's crypto (Linux), this phase alternates 100 ms slices with the raw OpenSSL
//           operation `openssl speed` times (see RawOpenSSLVerifier), so that both rates see the
//           same machine conditions; their ratio per second of CPU time (inproc_ratio) stays
//           meaningful when other work disturbs the machine;
//   parse   the same work without the signature: `CompactJWS(parsing:)` then `JWTClaims(payload:)`;
//   sig     the signature check alone, `CompactJWS.verify(using:allowedAlgorithms:)` on a token
//           parsed beforehand (key selection, SHA-256 and the OpenSSL verification).
//
// Output: one parseable line per algorithm on stdout, everything else on stderr:
//
//   xid ES256 verify_ops_per_s=… us_per_op=… cpu_ops_per_s=… ossl_ops_per_s=… inproc_ratio=…
//             parse_us=… sig_us=… token_bytes=… iterations=…   (on one line)
//
// verify_ops_per_s and the µs figures use wall-clock time (ContinuousClock); cpu_ops_per_s divides the
// same verify run by this thread's CPU time instead, as `openssl speed` does unless given -elapsed.
//
// Usage: XidBenchmarks [--seconds S] [--warmup S] [--algorithms ES256,RS256,…] [--iterations N]
//
//   --seconds S      how long each timed phase runs per algorithm (default 2); in the interleaved
//                    verify phase, Xid and the raw OpenSSL operation get S seconds each
//   --warmup S       warm-up before each phase (default 0.5)
//   --algorithms L   comma-separated subset (default all four)
//   --iterations N   run exactly N full verifications per algorithm instead of a timed run, and
//                    skip the parse and sig phases (for profilers such as callgrind)

import BenchmarkSupport
import Foundation
import XidJOSE

#if canImport(COpenSSL)
  // Xid's own libcrypto module (a dependency of XidJOSE), for the in-process OpenSSL baseline.
  import COpenSSL
#endif

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
      guard index < arguments.count else { usage("XidBenchmarks", "\(name) needs a value") }
      return arguments[index]
    }
    while index < arguments.count {
      let argument = arguments[index]
      switch argument {
      case "--seconds":
        guard let seconds = Double(value(argument)), seconds > 0 else {
          usage("XidBenchmarks", "--seconds needs a positive number")
        }
        options.seconds = seconds
      case "--warmup":
        guard let warmup = Double(value(argument)), warmup >= 0 else {
          usage("XidBenchmarks", "--warmup needs a number ≥ 0")
        }
        options.warmup = warmup
      case "--algorithms":
        let names = value(argument).split(separator: ",").map(String.init)
        var algorithms: [JWSAlgorithm] = []
        for name in names {
          guard let algorithm = JWSAlgorithm(rawValue: name) else {
            usage("XidBenchmarks", "unknown algorithm \(name)")
          }
          algorithms.append(algorithm)
        }
        guard !algorithms.isEmpty else { usage("XidBenchmarks", "--algorithms needs at least one algorithm") }
        options.algorithms = algorithms
      case "--iterations":
        guard let iterations = Int(value(argument)), iterations > 0 else {
          usage("XidBenchmarks", "--iterations needs a positive integer")
        }
        options.iterations = iterations
      case "-h", "--help":
        printError(
          "usage: XidBenchmarks [--seconds S] [--warmup S] [--algorithms ES256,RS256,PS256,EdDSA] [--iterations N]")
        exit(0)
      default:
        usage("XidBenchmarks", "unknown argument \(argument)")
      }
      index += 1
    }
    return options
  }
}

// MARK: - The token

/// What the client expects of the token, prepared once.
struct Expectations {
  let issuer: String
  let clientId: String
  let nonce: String
  let leeway: Duration = .seconds(60)
  let allowedAlgorithms: Set<JWSAlgorithm> = [.es256, .rs256, .ps256, .edDSA]
}

/// An ID token shaped like a large provider's: the OpenID Connect claims plus the usual profile ones.
func makeIDToken(key: JWSSigningKey, expectations: Expectations) throws -> String {
  let now = Int64(Date().timeIntervalSince1970)
  let claims: [String: JSONValue] = [
    "iss": .string(expectations.issuer),
    "sub": "110169484474386276334",
    "aud": .string(expectations.clientId),
    "azp": .string(expectations.clientId),
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
  guard claims.audience.contains(expectations.clientId) else {
    throw BenchmarkFailure(description: "aud does not match")
  }
  guard claims.audience.count == 1 || claims.authorizedParty == expectations.clientId else {
    throw BenchmarkFailure(description: "azp does not match")
  }
  guard claims.nonce == expectations.nonce else { throw BenchmarkFailure(description: "nonce does not match") }
  return jwt
}

// MARK: - Timing

/// CPU time this thread has used, in seconds (as `openssl speed` measures by default).
func threadCPUTime() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

struct Measurement {
  let iterations: Int
  let elapsed: Duration
  let cpuSeconds: Double

  var seconds: Double {
    let (s, attoseconds) = elapsed.components
    return Double(s) + Double(attoseconds) * 1e-18
  }
  var opsPerSecond: Double { Double(iterations) / seconds }
  var microsecondsPerOp: Double { seconds * 1e6 / Double(iterations) }
  /// Operations per second of CPU time: unlike wall-clock time, not lowered when the scheduler runs
  /// other work on this core.
  var cpuOpsPerSecond: Double { Double(iterations) / cpuSeconds }
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
  let cpuStart = threadCPUTime()
  let start = clock.now
  let deadline = start.advanced(by: .milliseconds(Int64(seconds * 1000)))
  var iterations = 0
  var now = start
  repeat {
    for _ in 0..<batch { try body() }
    iterations += batch
    now = clock.now
  } while now < deadline
  return Measurement(iterations: iterations, elapsed: now - start, cpuSeconds: threadCPUTime() - cpuStart)
}

func measure(iterations: Int, _ body: () throws -> Void) rethrows -> Measurement {
  let clock = ContinuousClock()
  let cpuStart = threadCPUTime()
  let start = clock.now
  for _ in 0..<iterations { try body() }
  return Measurement(iterations: iterations, elapsed: clock.now - start, cpuSeconds: threadCPUTime() - cpuStart)
}

/// Runs `first` and `second` in alternating slices of `slice` seconds until each has run for
/// `seconds`, after `warmup` seconds of both. Both see the same machine conditions, so the ratio of
/// their rates holds even when other work slows the machine down for part of the run.
func measureInterleaved(
  seconds: Double, warmup: Double, slice: Double = 0.1, _ first: () throws -> Void, _ second: () throws -> Void
) rethrows -> (Measurement, Measurement) {
  let clock = ContinuousClock()
  if warmup > 0 {
    let warmupEnd = clock.now.advanced(by: .milliseconds(Int64(warmup * 1000)))
    repeat {
      try first()
      try second()
    } while clock.now < warmupEnd
  }
  var iterations = (0, 0)
  var elapsed = (Duration.zero, Duration.zero)
  var cpu = (0.0, 0.0)
  let slices = max(1, Int((seconds / slice).rounded()))
  let sliceDuration = Duration.milliseconds(Int64(slice * 1000))
  func run(_ body: () throws -> Void, _ iterations: inout Int, _ elapsed: inout Duration, _ cpu: inout Double) rethrows
  {
    let cpuStart = threadCPUTime()
    let start = clock.now
    let deadline = start.advanced(by: sliceDuration)
    var now = start
    repeat {
      try body()
      iterations += 1
      now = clock.now
    } while now < deadline
    elapsed += now - start
    cpu += threadCPUTime() - cpuStart
  }
  for index in 0..<slices {
    // Alternate which goes first, so neither always follows the other.
    if index % 2 == 0 {
      try run(first, &iterations.0, &elapsed.0, &cpu.0)
      try run(second, &iterations.1, &elapsed.1, &cpu.1)
    } else {
      try run(second, &iterations.1, &elapsed.1, &cpu.1)
      try run(first, &iterations.0, &elapsed.0, &cpu.0)
    }
  }
  return (
    Measurement(iterations: iterations.0, elapsed: elapsed.0, cpuSeconds: cpu.0),
    Measurement(iterations: iterations.1, elapsed: elapsed.1, cpuSeconds: cpu.1)
  )
}

#if canImport(COpenSSL)
  /// The operation `openssl speed` (OpenSSL 3.0) times as "verify", done the same way in this process:
  /// a fresh key of the same kind, one context prepared once, a short pre-hashed message:
  ///
  /// - ecdsap256: `EVP_PKEY_verify` of a DER signature over 20 bytes;
  /// - rsa2048: `EVP_PKEY_verify` with PKCS #1 v1.5 padding and no digest over 36 bytes;
  /// - ed25519: `EVP_DigestVerifyInit` with the prepared context, then `EVP_DigestVerify` of 20 bytes.
  ///
  /// It is the reference of the in-process ratio; it shares no code with Xid's verification.
  final class RawOpenSSLVerifier {
    private let key: OpaquePointer
    private let pkeyContext: OpaquePointer?
    private let digestContext: OpaquePointer?
    private let message: [UInt8]
    private let signature: [UInt8]

    init(for algorithm: JWSAlgorithm) throws {
      func fail(_ what: String) -> BenchmarkFailure {
        ERR_clear_error()
        return BenchmarkFailure(description: "raw OpenSSL baseline for \(algorithm): \(what) failed")
      }
      let type = algorithm == .es256 ? "EC" : algorithm == .edDSA ? "ED25519" : "RSA"
      guard let generator = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { throw fail("EVP_PKEY_CTX_new_from_name") }
      defer { EVP_PKEY_CTX_free(generator) }
      var generated: OpaquePointer? = nil
      guard EVP_PKEY_keygen_init(generator) == 1,
        type != "EC" || EVP_PKEY_CTX_set_group_name(generator, "prime256v1") == 1,
        type != "RSA" || EVP_PKEY_CTX_set_rsa_keygen_bits(generator, 2048) == 1,
        EVP_PKEY_generate(generator, &generated) == 1, let generated
      else { throw fail("key generation") }
      key = generated
      message = [UInt8](repeating: 0x5A, count: type == "RSA" ? 36 : 20)

      if type == "ED25519" {
        guard let signer = EVP_MD_CTX_new() else { throw fail("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(signer) }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = 64
        guard EVP_DigestSignInit_ex(signer, nil, nil, nil, nil, key, nil) == 1,
          EVP_DigestSign(signer, &signature, &length, message, message.count) == 1
        else { throw fail("signing") }
        self.signature = Array(signature.prefix(length))
        guard let verifier = EVP_MD_CTX_new(), EVP_DigestVerifyInit_ex(verifier, nil, nil, nil, nil, key, nil) == 1
        else { throw fail("EVP_DigestVerifyInit_ex") }
        digestContext = verifier
        pkeyContext = nil
      } else {
        guard let signer = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { throw fail("EVP_PKEY_CTX_new_from_pkey") }
        defer { EVP_PKEY_CTX_free(signer) }
        var length = 0
        guard EVP_PKEY_sign_init(signer) == 1, EVP_PKEY_sign(signer, nil, &length, message, message.count) == 1
        else { throw fail("signing") }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_sign(signer, &signature, &length, message, message.count) == 1 else { throw fail("signing") }
        self.signature = Array(signature.prefix(length))
        guard let verifier = EVP_PKEY_CTX_new_from_pkey(nil, key, nil), EVP_PKEY_verify_init(verifier) == 1
        else { throw fail("EVP_PKEY_verify_init") }
        pkeyContext = verifier
        digestContext = nil
      }
      guard verify() else { throw fail("verifying its own signature") }
    }

    deinit {
      if let pkeyContext { EVP_PKEY_CTX_free(pkeyContext) }
      if let digestContext { EVP_MD_CTX_free(digestContext) }
      EVP_PKEY_free(key)
    }

    func verify() -> Bool {
      if let digestContext {
        return EVP_DigestVerifyInit_ex(digestContext, nil, nil, nil, nil, nil, nil) == 1
          && EVP_DigestVerify(digestContext, signature, signature.count, message, message.count) == 1
      }
      return EVP_PKEY_verify(pkeyContext, signature, signature.count, message, message.count) == 1
    }
  }
#endif

func format(_ value: Double, _ decimals: Int) -> String {
  String(format: "%.\(decimals)f", value)
}

// MARK: - Main

func run() throws {
  let options = Options.parse(Array(ProcessInfo.processInfo.arguments.dropFirst()))
  let expectations = Expectations(
    issuer: "https://accounts.example.com",
    clientId: "407408718192-9qk1vhp6c6ot4r3s6qbe1u5a0m5gk3nh.apps.example.com",
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
        blackHole(jwt.claims.audience.count &+ (jwt.claims.subject?.utf8.count ?? 0) &+ jwt.jws.payload.count)
      }
      print(
        "xid \(algorithm.rawValue) verify_ops_per_s=\(format(full.opsPerSecond, 1))"
          + " us_per_op=\(format(full.microsecondsPerOp, 2)) cpu_ops_per_s=\(format(full.cpuOpsPerSecond, 1))"
          + " token_bytes=\(token.utf8.count)"
          + " iterations=\(full.iterations)")
      continue
    }

    let fullVerification = {
      let jwt = try verifyIDToken(token, keySet: keySet, expectations: expectations)
      blackHole(jwt.claims.audience.count &+ (jwt.claims.subject?.utf8.count ?? 0) &+ jwt.jws.payload.count)
    }
    let full: Measurement
    var baselineFields = ""
    #if canImport(COpenSSL)
      let raw = try RawOpenSSLVerifier(for: algorithm)
      let (xid, openssl) = try measureInterleaved(seconds: options.seconds, warmup: options.warmup, fullVerification) {
        guard raw.verify() else { throw BenchmarkFailure(description: "the raw OpenSSL baseline failed to verify") }
      }
      full = xid
      baselineFields =
        " ossl_ops_per_s=\(format(openssl.opsPerSecond, 1))"
        + " inproc_ratio=\(format(xid.cpuOpsPerSecond / openssl.cpuOpsPerSecond, 3))"
    #else
      full = try measure(seconds: options.seconds, warmup: options.warmup, fullVerification)
    #endif
    let parse = try measure(seconds: options.seconds, warmup: options.warmup, batch: 64) {
      let jws = try CompactJWS(parsing: token)
      let claims = try JWTClaims(payload: jws.payload)
      blackHole(claims.audience.count &+ (claims.subject?.utf8.count ?? 0) &+ jws.payload.count)
    }
    let parsed = try CompactJWS(parsing: token)
    let signature = try measure(seconds: options.seconds, warmup: options.warmup) {
      let key = try parsed.verify(using: keySet, allowedAlgorithms: expectations.allowedAlgorithms)
      blackHole(key.keyID?.utf8.count ?? 0)
    }
    print(
      "xid \(algorithm.rawValue) verify_ops_per_s=\(format(full.opsPerSecond, 1))"
        + " us_per_op=\(format(full.microsecondsPerOp, 2))"
        + " cpu_ops_per_s=\(format(full.cpuOpsPerSecond, 1))" + baselineFields
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
