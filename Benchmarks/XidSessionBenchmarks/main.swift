// XidSessionBenchmarks: what `Xid.getAccessToken()` costs when a valid token is already in memory,
// the call an app makes before every API request.
//
// Xid signs in once against the in-memory TestProvider (XidTesting: no network, no browser) with
// InMemoryTokenStorage and the system clock, so the token comes back from the fast path: two locks (the
// engine, the cached record), the clock's coarse reading and an expiry comparison, with no actor call,
// no copy of the record and no I/O. After a
// warm-up, batches of awaited calls are timed with ContinuousClock (the clock is read once per batch,
// so its cost does not count). Three references are timed in the same run, batch for batch
// interleaved with Xid's calls so that all of them see the same machine conditions:
//
//   await   one `await` of a trivial async function (`@inline(never)`, adds one to an Int): the
//           floor of any async API;
//   hop     one `await` of an async function shaped like `getAccessToken()`: an immediate return on
//           its fast path, an actor call on the other. Where the caller runs on an actor, this is
//           the cost of the executor switches such a function makes before it does anything;
//   date    one `Date()`: a clock_gettime call and a conversion; the fast path makes one itself.
//
// The four run first from a nonisolated async function, that is on Swift's global concurrent
// executor, where `getAccessToken()` (nonisolated) runs too: the figures are the calls themselves.
// Then the same from the main actor (unless `--no-main-actor`): there a call to a nonisolated async
// function that needs its executor (getAccessToken() and `hop`; the optimiser removes the switch from
// the trivial one) runs on the global executor and returns to the main thread, two thread switches
// per call: what a caller on the main actor (a view model, a command-line program's top-level code)
// pays.
//
// Each batch gives one figure, its time divided by its calls; the median, p90 and p99 are over the
// batches (a p99 is therefore the mean of a batch that was interrupted, not one slow call).
//
// Output: parseable lines on stdout, everything else on stderr:
//
//   session <context> <what> median_ns=… p90_ns=… p99_ns=… batches=… calls_per_batch=…
//   session <context> ratios getAccessToken_per_await=… getAccessToken_per_hop=… getAccessToken_per_date=…
//   session nonisolated goal getAccessToken_per_await=… limit=3.00 met|NOT MET
//
// The goal (issue 22): from a nonisolated caller, getAccessToken() costs at most three trivial
// `await`s measured in the same run (`--goal-awaits`). Above it the program says so on both streams
// and exits with status 2, after printing every figure.
//
// with <context> `nonisolated` or `main_actor` and <what> `getAccessToken`, `await`, `hop` or `date`.
//
// Usage: XidSessionBenchmarks [--batches N] [--batch-size N] [--warmup S] [--no-main-actor]
//        XidSessionBenchmarks --prepare-cold-start DIRECTORY [--token-lifetime S]
//
//   --batches N          timed batches of each kind (default 300)
//   --goal-awaits X      the nonisolated goal, in trivial awaits (default 3)
//   --batch-size N       awaited calls per batch (default 1000)
//   --warmup S           seconds of untimed calls first (default 0.5)
//   --no-main-actor      skip the main-actor measurement
//   --prepare-cold-start DIRECTORY
//                        instead of benchmarking, sign in against the TestProvider and store the
//                        tokens with FileTokenStorage(directory: DIRECTORY), for XidColdStart (see
//                        Benchmarks/cold-start.sh); the access token lives --token-lifetime seconds
//                        (default 86400). Prints the record's path on stdout, never a token.

import BenchmarkSupport
import Foundation
import Xid
import XidTesting

// MARK: - Options

struct Options {
  var batches = 300
  var batchSize = 1000
  var warmup = 0.5
  var mainActor = true
  var prepareDirectory: String? = nil
  var tokenLifetime: TimeInterval = 86_400
  var goalAwaits = 3.0

  static func parse(_ arguments: [String]) -> Options {
    var options = Options()
    var index = 0
    func value(_ name: String) -> String {
      index += 1
      guard index < arguments.count else { usage("XidSessionBenchmarks", "\(name) needs a value") }
      return arguments[index]
    }
    while index < arguments.count {
      let argument = arguments[index]
      switch argument {
      case "--batches":
        guard let batches = Int(value(argument)), batches > 0 else {
          usage("XidSessionBenchmarks", "--batches needs a positive integer")
        }
        options.batches = batches
      case "--batch-size":
        guard let size = Int(value(argument)), size > 0 else {
          usage("XidSessionBenchmarks", "--batch-size needs a positive integer")
        }
        options.batchSize = size
      case "--warmup":
        guard let warmup = Double(value(argument)), warmup >= 0 else {
          usage("XidSessionBenchmarks", "--warmup needs a number ≥ 0")
        }
        options.warmup = warmup
      case "--goal-awaits":
        guard let goal = Double(value(argument)), goal > 0 else {
          usage("XidSessionBenchmarks", "--goal-awaits needs a positive number")
        }
        options.goalAwaits = goal
      case "--no-main-actor":
        options.mainActor = false
      case "--prepare-cold-start":
        options.prepareDirectory = value(argument)
      case "--token-lifetime":
        guard let lifetime = TimeInterval(value(argument)), lifetime >= 120 else {
          usage(
            "XidSessionBenchmarks",
            "--token-lifetime needs a number of seconds ≥ 120 (Xid refreshes 60 s before expiry)")
        }
        options.tokenLifetime = lifetime
      case "-h", "--help":
        printError(
          "usage: XidSessionBenchmarks [--batches N] [--batch-size N] [--warmup S] [--no-main-actor]\n"
            + "       XidSessionBenchmarks --prepare-cold-start DIRECTORY [--token-lifetime S]")
        exit(0)
      default:
        usage("XidSessionBenchmarks", "unknown argument \(argument)")
      }
      index += 1
    }
    return options
  }
}

// MARK: - Signing in

/// An Xid signed in at `provider`, with `storage` and the system clock (as in an app: the fast path
/// reads `Date()`, not a test clock).
func signedInXid(provider: TestProvider, storage: any TokenStorageAdapter) async throws -> Xid {
  var configuration = XidConfiguration(
    identity: ClientIdentity(
      issuer: provider.issuer, clientId: TestClient.example.id, redirectUri: TestClient.example.redirectURIs[0]),
    parts: SessionParts(transport: provider.transport, clock: SystemClock(), userAgent: provider.userAgent))
  configuration.parts.storage = storage
  let xid = try Xid(configuration: configuration)
  try await xid.signIn()
  return xid
}

func provider(tokenLifetime: TimeInterval) throws -> TestProvider {
  var configuration = TestProvider.Configuration()
  configuration.accessTokenLifetime = .seconds(tokenLifetime)
  return try TestProvider(configuration: configuration)
}

/// `--prepare-cold-start`: a FileTokenStorage directory with a signed-in record, for XidColdStart.
func prepareColdStart(directory: String, tokenLifetime: TimeInterval) async throws {
  let storage = try FileTokenStorage(directory: URL(fileURLWithPath: directory, isDirectory: true))
  let xid = try await signedInXid(provider: try provider(tokenLifetime: tokenLifetime), storage: storage)
  // What XidColdStart will do, once here: a token must come back without a refresh.
  blackHole(try await xid.getAccessToken().utf8.count)
  let keys = try storage.keys(withPrefix: "xid.tokens.")
  guard keys.count == 1 else { throw BenchmarkFailure(description: "expected one stored record, found \(keys.count)") }
  let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }
  guard files.count == 1 else { throw BenchmarkFailure(description: "expected one record file, found \(files.count)") }
  print(storage.directory.appendingPathComponent(files[0]).path)
  printError("# stored a record valid for \(Int(tokenLifetime)) s in \(directory)")
}

// MARK: - The timed batches

/// A trivial async function: the reference for one `await`. The optimiser removes its switch to the
/// global executor (nothing in it needs one), so from the main actor too it runs where it is called.
@inline(never)
func trivialAsync(_ value: Int) async -> Int {
  value &+ 1
}

actor SlowPath {
  private var count = 0
  func next() -> Int {
    count += 1
    return count
  }
}

let slowPath = SlowPath()

/// An async function shaped like `getAccessToken()`: it returns at once on its fast path (always taken
/// here) and awaits an actor on the other. The actor call keeps the switch to the global executor at
/// its start, so from the main actor every call goes to the global executor and back: the reference
/// for what such a call costs there before doing anything.
@inline(never)
func hoppingAsync(_ value: Int) async -> Int {
  if value >= 0 { return value &+ 1 }
  return await slowPath.next()
}

enum Subject: String, CaseIterable {
  case getAccessToken
  case await
  case hop
  case date
}

/// One batch of `calls` calls to `subject`, from a nonisolated async function (Swift's global
/// executor, where `getAccessToken()` runs): the time per call, in nanoseconds.
@inline(never)
func nonisolatedBatch(_ subject: Subject, _ xid: Xid, calls: Int) async throws -> Double {
  let clock = ContinuousClock()
  let start = clock.now
  switch subject {
  case .getAccessToken:
    for _ in 0..<calls { blackHole(try await xid.getAccessToken().utf8.count) }
  case .await:
    for index in 0..<calls { blackHole(await trivialAsync(index)) }
  case .hop:
    for index in 0..<calls { blackHole(await hoppingAsync(index)) }
  case .date:
    for _ in 0..<calls { blackHole(Int(truncatingIfNeeded: Date().timeIntervalSinceReferenceDate.bitPattern)) }
  }
  return nanoseconds(clock.now - start) / Double(calls)
}

/// The same from the main actor: a call to a nonisolated async function that needs its executor goes
/// to the global executor and back.
@MainActor @inline(never)
func mainActorBatch(_ subject: Subject, _ xid: Xid, calls: Int) async throws -> Double {
  let clock = ContinuousClock()
  let start = clock.now
  switch subject {
  case .getAccessToken:
    for _ in 0..<calls { blackHole(try await xid.getAccessToken().utf8.count) }
  case .await:
    for index in 0..<calls { blackHole(await trivialAsync(index)) }
  case .hop:
    for index in 0..<calls { blackHole(await hoppingAsync(index)) }
  case .date:
    for _ in 0..<calls { blackHole(Int(truncatingIfNeeded: Date().timeIntervalSinceReferenceDate.bitPattern)) }
  }
  return nanoseconds(clock.now - start) / Double(calls)
}

func nanoseconds(_ duration: Duration) -> Double {
  let (seconds, attoseconds) = duration.components
  return Double(seconds) * 1e9 + Double(attoseconds) * 1e-9
}

struct Distribution {
  let sorted: [Double]

  init(_ values: [Double]) { sorted = values.sorted() }

  /// Nearest rank.
  func percentile(_ p: Double) -> Double {
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
  }

  var median: Double {
    let n = sorted.count
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
  }
}

func format(_ value: Double, _ decimals: Int) -> String {
  String(format: "%.\(decimals)f", value)
}

/// Warms up, then runs `batches` batches of each subject in rotation (the order changes every batch,
/// so no subject always follows another), and prints the three distributions and the ratios.
///
/// - Returns: getAccessToken()'s median in trivial awaits.
@discardableResult
func measure(
  context: String, options: Options, _ batch: (Subject, Int) async throws -> Double
) async throws -> Double {
  let clock = ContinuousClock()
  let warmupEnd = clock.now.advanced(by: .milliseconds(Int64(options.warmup * 1000)))
  repeat {
    for subject in Subject.allCases { _ = try await batch(subject, min(options.batchSize, 100)) }
  } while clock.now < warmupEnd

  var figures: [Subject: [Double]] = [:]
  let subjects = Subject.allCases
  for index in 0..<options.batches {
    for offset in 0..<subjects.count {
      let subject = subjects[(index + offset) % subjects.count]
      figures[subject, default: []].append(try await batch(subject, options.batchSize))
    }
  }
  var medians: [Subject: Double] = [:]
  for subject in subjects {
    let distribution = Distribution(figures[subject] ?? [])
    medians[subject] = distribution.median
    print(
      "session \(context) \(subject.rawValue) median_ns=\(format(distribution.median, 1))"
        + " p90_ns=\(format(distribution.percentile(90), 1)) p99_ns=\(format(distribution.percentile(99), 1))"
        + " batches=\(options.batches) calls_per_batch=\(options.batchSize)")
  }
  let xid = medians[.getAccessToken] ?? 0
  print(
    "session \(context) ratios getAccessToken_per_await=\(format(xid / (medians[.await] ?? 1), 2))"
      + " getAccessToken_per_hop=\(format(xid / (medians[.hop] ?? 1), 2))"
      + " getAccessToken_per_date=\(format(xid / (medians[.date] ?? 1), 2))")
  fflush(nil)
  return xid / (medians[.await] ?? 1)
}

// MARK: - Main

func run() async throws {
  let options = Options.parse(Array(ProcessInfo.processInfo.arguments.dropFirst()))
  if let directory = options.prepareDirectory {
    try await prepareColdStart(directory: directory, tokenLifetime: options.tokenLifetime)
    return
  }
  // A token that outlives the run by far, so that no call refreshes.
  let provider = try provider(tokenLifetime: 3600)
  let xid = try await signedInXid(provider: provider, storage: InMemoryTokenStorage())
  let tokenRequests = await provider.counters.tokenRequests
  printError(
    "# Xid.getAccessToken() with a valid token in memory: \(options.batches) batches of \(options.batchSize)"
      + " awaited calls per subject after \(options.warmup) s warm-up")

  let awaits = try await measure(context: "nonisolated", options: options) { subject, calls in
    try await nonisolatedBatch(subject, xid, calls: calls)
  }
  let met = awaits <= options.goalAwaits
  print(
    "session nonisolated goal getAccessToken_per_await=\(format(awaits, 2)) limit=\(format(options.goalAwaits, 2)) "
      + (met ? "met" : "NOT MET"))
  if options.mainActor {
    try await measure(context: "main_actor", options: options) { subject, calls in
      try await mainActorBatch(subject, xid, calls: calls)
    }
  }
  // The fast path must have answered every call: no refresh reached the provider.
  let after = await provider.counters.tokenRequests
  guard after == tokenRequests else {
    throw BenchmarkFailure(description: "\(after - tokenRequests) token requests during the run: not the fast path")
  }
  printError("# token requests during the run: 0; checksum \(sink)")
  if !met {
    printError(
      "XidSessionBenchmarks: GOAL NOT MET: getAccessToken() costs \(format(awaits, 2)) trivial awaits from a"
        + " nonisolated caller, above the limit of \(format(options.goalAwaits, 2))")
    exit(2)
  }
}

do {
  try await run()
} catch {
  printError("XidSessionBenchmarks: FAILED: \(error)")
  exit(1)
}
