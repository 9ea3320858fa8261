// XidDPoPBenchmarks: what DPoP (RFC 9449) costs a client.
//
// 1. proof  DPoPProof.make(key:method:url:accessToken:nonce:issuedAt:) with a software P-256 key: a
//           proof for a resource server (with `ath` and a `nonce`, the largest kind): 16 random bytes
//           for `jti`, the claims' JSON, base64url, SHA-256 of the signing input, the ECDSA signature
//           and its conversion to r ‖ s. Where libcrypto is Xid's crypto (Linux), this phase alternates
//           100 ms slices with the raw operation `openssl speed ecdsap256` times for signing (a
//           prepared EVP_PKEY_CTX signing 20 bytes), so both rates see the same machine; their ratio
//           per second of the thread's CPU time is `inproc_ratio`. Benchmarks/dpop.sh divides the proof
//           rate by `openssl speed`'s sign rate as well.
//
// 2. headers  the same for Xid.authorizationHeaders(method:url:), what a session does per request:
//           the token from memory, the prepared key (its header encoded once, the token's `ath`
//           computed once per token), the origin's nonce, and the proof.
//
// 3. send   Xid.send(GET) over loopback, through URLSessionTransport, to a server on 127.0.0.1 that
//           answers 200 at once without looking at the request (so the server's own work, such as
//           verifying the proof, does not count): once with a Bearer session and once with a
//           DPoP-bound one (both signed in against XidTesting's TestProvider, on loopback too, with
//           the token valid in memory). A third variant is the Bearer request with a dummy header as
//           large as the proof, which tells what the larger request costs URLSession and the server
//           apart from making the proof. Batches of the three rotate; each batch gives one figure,
//           its time divided by its requests, and the medians over the batches are compared:
//           dpop_minus_bearer_us (goal ≤ 100), the ratio, and dpop_minus_padded_us.
//
// 4. warm  Xid.send(GET) in a warm loop against a transport that answers 200 at once (no network, no
//           server), with a Bearer session and with a DPoP-bound one, in 100 ms slices alternating with
//           the raw signature of phase 1: the client's whole cost of DPoP per request (the proof, its
//           header, the nonce lookup, the larger request) is the difference of the two sessions' CPU
//           time per request, and `cost_per_signature` divides it by one raw signature's (goal ≤ 1.2,
//           issue 22).
//
// Output: parseable lines on stdout, everything else on stderr:
//
//   dpop proof ops_per_s=… us_per_op=… cpu_ops_per_s=… ossl_sign_ops_per_s=… inproc_ratio=… proof_bytes=…
//   dpop headers ops_per_s=… us_per_op=… cpu_ops_per_s=… ossl_sign_ops_per_s=… inproc_ratio=…
//   dpop warm bearer_cpu_us=… dpop_cpu_us=… dpop_cost_us=… ossl_sign_cpu_us=… cost_per_signature=… limit=1.20 met|NOT MET
//   dpop send bearer_median_us=… padded_median_us=… dpop_median_us=… dpop_minus_bearer_us=… ratio=…
//             dpop_minus_padded_us=… bearer_cpu_us=… padded_cpu_us=… dpop_cpu_us=… proof_bytes=…
//             batches=… requests_per_batch=…   (on one line; *_cpu_us: the process's CPU time per request,
//             client, URLSession and server together, mean over the batches)
//
// Usage: XidDPoPBenchmarks [--seconds S] [--warmup S] [--batches N] [--batch-size N] [--skip-send]
//                          [--skip-proofs] [--components]

import BenchmarkSupport
import Foundation
import Xid
import XidLoopback
import XidTesting

#if canImport(COpenSSL)
  import COpenSSL
#endif

// MARK: - Options

struct Options {
  var seconds = 3.0
  var warmup = 0.5
  var batches = 200
  var batchSize = 20
  var send = true
  var components = false
  var proofs = true

  static func parse(_ arguments: [String]) -> Options {
    var options = Options()
    var index = 0
    func value(_ name: String) -> String {
      index += 1
      guard index < arguments.count else { usage("XidDPoPBenchmarks", "\(name) needs a value") }
      return arguments[index]
    }
    func positive(_ name: String) -> Double {
      guard let number = Double(value(name)), number > 0 else {
        usage("XidDPoPBenchmarks", "\(name) needs a positive number")
      }
      return number
    }
    while index < arguments.count {
      let argument = arguments[index]
      switch argument {
      case "--seconds": options.seconds = positive(argument)
      case "--warmup": options.warmup = positive(argument)
      case "--batches": options.batches = Int(positive(argument))
      case "--batch-size": options.batchSize = Int(positive(argument))
      case "--skip-send": options.send = false
      case "--components": options.components = true
      case "--skip-proofs": options.proofs = false
      case "-h", "--help":
        printError(
          "usage: XidDPoPBenchmarks [--seconds S] [--warmup S] [--batches N] [--batch-size N] [--skip-send] [--skip-proofs] [--components]"
        )
        exit(0)
      default: usage("XidDPoPBenchmarks", "unknown argument \(argument)")
      }
      index += 1
    }
    return options
  }
}

// MARK: - Timing

func threadCPUSeconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

/// CPU time of every thread of the process (the client, URLSession's and the server's threads).
func processCPUSeconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

func seconds(_ duration: Duration) -> Double {
  let (whole, attoseconds) = duration.components
  return Double(whole) + Double(attoseconds) * 1e-18
}

struct Rate {
  var iterations = 0
  var elapsed = Duration.zero
  var cpu = 0.0

  var perSecond: Double { Double(iterations) / seconds(elapsed) }
  var cpuPerSecond: Double { Double(iterations) / cpu }
  var microseconds: Double { seconds(elapsed) * 1e6 / Double(iterations) }
}

/// Alternates 100 ms slices of `first` and `second` for `total` seconds each.
func interleaved(total: Double, warmup: Double, _ first: () throws -> Void, _ second: () throws -> Void) rethrows
  -> (Rate, Rate)
{
  let clock = ContinuousClock()
  let warmupEnd = clock.now.advanced(by: .milliseconds(Int64(warmup * 1000)))
  repeat {
    try first()
    try second()
  } while clock.now < warmupEnd
  var rates = (Rate(), Rate())
  func slice(_ body: () throws -> Void, _ rate: inout Rate) rethrows {
    let cpuStart = threadCPUSeconds()
    let start = clock.now
    let deadline = start.advanced(by: .milliseconds(100))
    var now = start
    repeat {
      try body()
      rate.iterations += 1
      now = clock.now
    } while now < deadline
    rate.elapsed += now - start
    rate.cpu += threadCPUSeconds() - cpuStart
  }
  for index in 0..<max(1, Int((total / 0.1).rounded())) {
    if index % 2 == 0 {
      try slice(first, &rates.0)
      try slice(second, &rates.1)
    } else {
      try slice(second, &rates.1)
      try slice(first, &rates.0)
    }
  }
  return rates
}

func format(_ value: Double, _ decimals: Int = 1) -> String { String(format: "%.\(decimals)f", value) }

// MARK: - The raw OpenSSL signature

#if canImport(COpenSSL)
  /// The operation `openssl speed ecdsap256` times for signing: ECDSA P-256 over a 20-byte buffer with
  /// a key and context prepared once.
  final class RawOpenSSLSigner {
    private let key: OpaquePointer
    private let context: OpaquePointer
    private let message = [UInt8](repeating: 0x5A, count: 20)
    private var signature = [UInt8](repeating: 0, count: 80)

    init() throws {
      guard let generator = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
        throw BenchmarkFailure(description: "EVP_PKEY_CTX_new_from_name failed")
      }
      defer { EVP_PKEY_CTX_free(generator) }
      var generated: OpaquePointer? = nil
      guard EVP_PKEY_keygen_init(generator) == 1, EVP_PKEY_CTX_set_group_name(generator, "prime256v1") == 1,
        EVP_PKEY_generate(generator, &generated) == 1, let generated,
        let context = EVP_PKEY_CTX_new_from_pkey(nil, generated, nil), EVP_PKEY_sign_init(context) == 1
      else { throw BenchmarkFailure(description: "preparing the raw ECDSA P-256 signer failed") }
      key = generated
      self.context = context
    }

    deinit {
      EVP_PKEY_CTX_free(context)
      EVP_PKEY_free(key)
    }

    func sign() throws {
      var length = signature.count
      guard EVP_PKEY_sign(context, &signature, &length, message, message.count) == 1 else {
        throw BenchmarkFailure(description: "raw ECDSA P-256 signing failed")
      }
      blackHole(length)
    }
  }
#endif

// MARK: - Proofs

func benchmarkProofs(_ options: Options) throws {
  let key = try SoftwareDPoPKeyFactory().makeKey().key
  let url = URL(string: "https://api.example.com/v1/accounts/42/transactions?page=2")!
  let accessToken = Base64URL.encode(try XidCrypto.randomBytes(count: 32))
  let nonce = Base64URL.encode(try XidCrypto.randomBytes(count: 16))
  func proof() throws -> String {
    try DPoPProof.make(key: key, method: "GET", url: url, accessToken: accessToken, nonce: nonce, issuedAt: Date())
  }
  if options.components {
    let token = accessToken
    let input = [UInt8](repeating: 0x41, count: 420)
    func time(_ name: String, _ body: () throws -> Int) rethrows {
      let clock = ContinuousClock()
      let count = 200_000
      let start = clock.now
      for _ in 0..<count { blackHole(try body()) }
      printError("component \(name): \(format(seconds(clock.now - start) * 1e9 / Double(count), 0)) ns")
    }
    try time("randomBytes(16)") { try XidCrypto.randomBytes(count: 16).count }
    time("sha256(420 bytes)") { XidCrypto.sha256(input).count }
    time("accessTokenHash") { DPoPProof.accessTokenHash(token).utf8.count }
    time("targetURI") { DPoPProof.targetURI(of: url).utf8.count }
    time("base64url(300 bytes)") { Base64URL.encode(input.prefix(300)).utf8.count }
    time("Date()") { Int(Date().timeIntervalSince1970) }
  }
  let sample = try proof()
  try CompactJWS(parsing: sample).verify(with: JWSVerificationKey(jwk: key.publicJWK), allowedAlgorithms: [.es256])
  #if canImport(COpenSSL)
    let raw = try RawOpenSSLSigner()
    let (xid, openssl) = try interleaved(
      total: options.seconds, warmup: options.warmup, { blackHole(try proof().utf8.count) }, { try raw.sign() })
    let ratio = xid.cpuPerSecond / openssl.cpuPerSecond
    print(
      "dpop proof ops_per_s=\(format(xid.perSecond)) us_per_op=\(format(xid.microseconds, 2)) cpu_ops_per_s=\(format(xid.cpuPerSecond)) ossl_sign_ops_per_s=\(format(openssl.cpuPerSecond)) inproc_ratio=\(format(ratio, 3)) proof_bytes=\(sample.utf8.count)"
    )
  #else
    let (xid, _) = try interleaved(
      total: options.seconds, warmup: options.warmup, { blackHole(try proof().utf8.count) }, {})
    print(
      "dpop proof ops_per_s=\(format(xid.perSecond)) us_per_op=\(format(xid.microseconds, 2)) cpu_ops_per_s=\(format(xid.cpuPerSecond)) proof_bytes=\(sample.utf8.count)"
    )
  #endif
}

/// The proofs a session makes for each request: `Xid.authorizationHeaders(method:url:)` with the token in
/// memory (the token's record, the prepared key, the origin's nonce and the proof), interleaved with the
/// raw signature as above.
func benchmarkSessionProofs(_ options: Options) async throws {
  let provider = try TestProvider()
  var configuration = XidConfiguration(
    identity: ClientIdentity(
      issuer: provider.issuer, clientId: TestClient.example.id, redirectUri: TestClient.example.redirectURIs[0]),
    parts: SessionParts(
      transport: provider.transport, clock: provider.clock, userAgent: provider.userAgent, logger: DiscardingLogger()))
  configuration.usesDPoP = true
  configuration.parts.storage = InMemoryTokenStorage()
  let xid = try Xid(configuration: configuration)
  try await xid.signIn()
  let url = URL(string: "https://api.example.com/v1/accounts/42/transactions?page=2")!
  guard try await xid.authorizationHeaders(method: "GET", url: url)["DPoP"] != nil else {
    throw BenchmarkFailure(description: "the session made no proof")
  }
  #if canImport(COpenSSL)
    let raw = try RawOpenSSLSigner()
    let clock = ContinuousClock()
    var rates = (Rate(), Rate())
    let warmupEnd = clock.now.advanced(by: .milliseconds(Int64(options.warmup * 1000)))
    repeat {
      blackHole(try await xid.authorizationHeaders(method: "GET", url: url).fields.count)
      try raw.sign()
    } while clock.now < warmupEnd
    for index in 0..<max(1, Int((options.seconds / 0.1).rounded())) {
      for turn in index % 2 == 0 ? [0, 1] : [1, 0] {
        let cpuStart = threadCPUSeconds()
        let start = clock.now
        let deadline = start.advanced(by: .milliseconds(100))
        var now = start
        var iterations = 0
        repeat {
          if turn == 0 {
            blackHole(try await xid.authorizationHeaders(method: "GET", url: url).fields.count)
          } else {
            try raw.sign()
          }
          iterations += 1
          now = clock.now
        } while now < deadline
        let cpu = threadCPUSeconds() - cpuStart
        if turn == 0 {
          rates.0.iterations += iterations
          rates.0.elapsed += now - start
          rates.0.cpu += cpu
        } else {
          rates.1.iterations += iterations
          rates.1.elapsed += now - start
          rates.1.cpu += cpu
        }
      }
    }
    print(
      "dpop headers ops_per_s=\(format(rates.0.perSecond)) us_per_op=\(format(rates.0.microseconds, 2)) cpu_ops_per_s=\(format(rates.0.cpuPerSecond)) ossl_sign_ops_per_s=\(format(rates.1.cpuPerSecond)) inproc_ratio=\(format(rates.0.cpuPerSecond / rates.1.cpuPerSecond, 3))"
    )
  #endif
}

// MARK: - Xid.send, warm, against a transport that answers at once

/// Sends the provider's requests to the provider, and answers every other one 200 at once.
struct ImmediateTransport: HTTPTransport {
  let provider: any HTTPTransport
  let providerHost: String?

  func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    if request.url.host == providerHost { return try await provider.send(request) }
    return HTTPResponse(status: 200, body: Data("{}".utf8))
  }
}

/// The client's DPoP cost per request in a warm loop, against one raw P-256 signature.
func benchmarkWarmSend(_ options: Options) async throws {
  #if canImport(COpenSSL)
    let provider = try TestProvider()
    let storage = InMemoryTokenStorage()
    func session(dpop: Bool) async throws -> Xid {
      var configuration = XidConfiguration(
        identity: ClientIdentity(
          issuer: provider.issuer, clientId: TestClient.example.id, redirectUri: TestClient.example.redirectURIs[0],
          account: dpop ? "dpop" : "bearer"),
        parts: SessionParts(
          transport: ImmediateTransport(provider: provider.transport, providerHost: provider.issuer.host),
          clock: provider.clock, userAgent: provider.userAgent, logger: DiscardingLogger()))
      configuration.usesDPoP = dpop
      configuration.parts.storage = storage
      let xid = try Xid(configuration: configuration)
      try await xid.signIn()
      return xid
    }
    let bearer = try await session(dpop: false)
    let dpop = try await session(dpop: true)
    let request = HTTPRequest(url: URL(string: "https://api.example.com/v1/accounts/42/transactions?page=2")!)
    let raw = try RawOpenSSLSigner()
    let clock = ContinuousClock()
    // Bearer sends, DPoP sends, raw signatures; process CPU time, since a send may change threads.
    var rates = [Rate(), Rate(), Rate()]
    func run(_ turn: Int) async throws {
      switch turn {
      case 0: blackHole(try await bearer.send(request).status)
      case 1: blackHole(try await dpop.send(request).status)
      default: try raw.sign()
      }
    }
    let warmupEnd = clock.now.advanced(by: .milliseconds(Int64(options.warmup * 1000)))
    repeat { for turn in 0..<3 { try await run(turn) } } while clock.now < warmupEnd
    for index in 0..<max(1, Int((options.seconds / 0.1).rounded())) {
      for step in 0..<3 {
        let turn = (index + step) % 3
        let cpuStart = processCPUSeconds()
        let start = clock.now
        let deadline = start.advanced(by: .milliseconds(100))
        var now = start
        var iterations = 0
        repeat {
          try await run(turn)
          iterations += 1
          now = clock.now
        } while now < deadline
        rates[turn].iterations += iterations
        rates[turn].elapsed += now - start
        rates[turn].cpu += processCPUSeconds() - cpuStart
      }
    }
    let perRequest = rates.map { $0.cpu * 1e6 / Double($0.iterations) }
    let cost = perRequest[1] - perRequest[0]
    let ratio = cost / perRequest[2]
    print(
      "dpop warm bearer_cpu_us=\(format(perRequest[0], 2)) dpop_cpu_us=\(format(perRequest[1], 2)) dpop_cost_us=\(format(cost, 2)) ossl_sign_cpu_us=\(format(perRequest[2], 2)) cost_per_signature=\(format(ratio, 3)) limit=1.20 "
        + (ratio <= 1.2 ? "met" : "NOT MET"))
  #endif
}

// MARK: - Xid.send

func signedIn(_ provider: TestProvider, dpop: Bool, storage: InMemoryTokenStorage) async throws -> Xid {
  // The provider's clock stands still; a session on the real one made proofs whose `iat` was ahead
  // of it once a second had passed, and the sign-in failed now and then.
  var configuration = XidConfiguration(
    identity: ClientIdentity(
      issuer: provider.issuer, clientId: TestClient.example.id, redirectUri: TestClient.example.redirectURIs[0],
      account: dpop ? "dpop" : "bearer"),
    parts: SessionParts(
      transport: URLSessionTransport(), clock: provider.clock, userAgent: provider.userAgent, logger: DiscardingLogger()
    ))
  configuration.usesDPoP = dpop
  configuration.parts.storage = storage
  let xid = try Xid(configuration: configuration)
  try await xid.signIn()
  return xid
}

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  return sorted.count % 2 == 1
    ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func benchmarkSend(_ options: Options) async throws {
  var configuration = TestProvider.Configuration()
  configuration.accessTokenLifetime = .seconds(86_400)
  let provider = try await TestProvider.startLoopback(configuration: configuration)
  let server = try LoopbackHTTPServer { _ in HTTPResponse(status: 200, body: Data("{}".utf8)) }
  defer { server.stop() }
  let storage = InMemoryTokenStorage()
  let bearer = try await signedIn(provider, dpop: false, storage: storage)
  let dpop = try await signedIn(provider, dpop: true, storage: storage)
  await provider.stopLoopback()
  let request = HTTPRequest(url: server.baseURL.appendingPathComponent("v1/items"))
  // A Bearer request as large as a DPoP one: what the larger request costs the transport and the
  // server, apart from making the proof.
  let proofSize = try await dpop.authorizationHeaders(method: "GET", url: request.url)["DPoP"]?.utf8.count ?? 0
  var padded = request
  padded.headers["X-Padding"] = String(repeating: "a", count: proofSize)

  struct Variant {
    let xid: Xid
    let request: HTTPRequest
    var wall: [Double] = []
    var cpu = 0.0
  }
  var variants = [
    Variant(xid: bearer, request: request), Variant(xid: bearer, request: padded),
    Variant(xid: dpop, request: request),
  ]
  func batch(_ variant: inout Variant, _ count: Int, record: Bool) async throws {
    let clock = ContinuousClock()
    let cpuStart = processCPUSeconds()
    let start = clock.now
    for _ in 0..<count {
      let response = try await variant.xid.send(variant.request)
      guard response.status == 200 else {
        throw BenchmarkFailure(description: "the server answered \(response.status)")
      }
    }
    guard record else { return }
    variant.wall.append(seconds(clock.now - start) * 1e6 / Double(count))
    variant.cpu += (processCPUSeconds() - cpuStart) * 1e6 / Double(count)
  }
  // Warm-up: connections, code paths.
  let warmupEnd = ContinuousClock.now.advanced(by: .milliseconds(Int64(options.warmup * 1000)))
  repeat {
    for index in variants.indices { try await batch(&variants[index], 5, record: false) }
  } while ContinuousClock.now < warmupEnd
  for round in 0..<options.batches {
    // The order rotates, so that no variant always follows the same one.
    for step in 0..<variants.count {
      try await batch(&variants[(round + step) % variants.count], options.batchSize, record: true)
    }
  }
  let medians = variants.map { median($0.wall) }
  let cpu = variants.map { $0.cpu / Double(options.batches) }
  print(
    "dpop send bearer_median_us=\(format(medians[0])) padded_median_us=\(format(medians[1])) dpop_median_us=\(format(medians[2])) dpop_minus_bearer_us=\(format(medians[2] - medians[0])) ratio=\(format(medians[2] / medians[0], 3)) dpop_minus_padded_us=\(format(medians[2] - medians[1])) bearer_cpu_us=\(format(cpu[0])) padded_cpu_us=\(format(cpu[1])) dpop_cpu_us=\(format(cpu[2])) proof_bytes=\(proofSize) batches=\(options.batches) requests_per_batch=\(options.batchSize)"
  )
}

// MARK: - Main

let options = Options.parse(Array(ProcessInfo.processInfo.arguments.dropFirst()))
printError(
  "# Xid DPoP: proof creation (\(options.seconds) s each, interleaved with raw OpenSSL signing), then Xid.send over loopback"
)
do {
  if options.proofs {
    try benchmarkProofs(options)
    try await benchmarkSessionProofs(options)
    try await benchmarkWarmSend(options)
  }
  if options.send { try await benchmarkSend(options) }
  printError("# sink \(sink)")
} catch {
  printError("XidDPoPBenchmarks: \(error)")
  exit(1)
}
