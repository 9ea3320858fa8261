import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

/// Collects, while one test runs, every test provider and log the test made and every error it saw.
final class LeakRegistry: @unchecked Sendable {
  @TaskLocal static var current: LeakRegistry?

  // Both arrays are only touched while `lock` is held.
  private let lock = NSLock()
  private var harnesses: [(provider: TestProvider, logger: RecordingLogger)] = []
  private var texts: [String] = []

  func register(provider: TestProvider, logger: RecordingLogger) {
    lock.withLock { harnesses.append((provider, logger)) }
  }

  func record(_ error: any Error) {
    lock.withLock {
      texts.append(contentsOf: ["\(error)", String(describing: error), "\(error.localizedDescription)"])
    }
  }

  /// Fails the test if any secret a provider issued or received appears in a log line or an error.
  func verify() async {
    let (harnesses, texts) = lock.withLock { (self.harnesses, self.texts) }
    var secrets: Set<String> = []
    for harness in harnesses { secrets.formUnion(await harness.provider.issuedSecrets) }
    let lines = texts + harnesses.flatMap(\.logger.messages)
    for secret in secrets where secret.count >= 8 {
      for line in lines where line.contains(secret) {
        let redacted = line.replacingOccurrences(of: secret, with: "[secret]")
        Issue.record("a secret issued by the test provider leaked into: \(redacted.prefix(120))")
      }
    }
  }
}

/// Fails a test when any token, code or verifier the test provider issued or received reaches a log
/// line or an error Xid produced during the test. Applied to whole suites.
struct NoSecretLeaks: SuiteTrait, TestTrait, TestScoping {
  var isRecursive: Bool { true }

  func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    guard !test.isSuite else { return try await function() }
    let registry = LeakRegistry()
    do {
      try await LeakRegistry.$current.withValue(registry) {
        try await ObservedErrors.$recorder.withValue({ registry.record($0) }) { try await function() }
      }
    } catch {
      registry.record(error)
      await registry.verify()
      throw error
    }
    await registry.verify()
  }
}

extension Trait where Self == NoSecretLeaks {
  /// Fails a test when a secret reaches a log line or an error.
  static var noSecretLeaks: Self { NoSecretLeaks() }
}
