import Foundation

/// How a check came out, against its expectation.
public enum DiagnosticsVerdict: String, Codable, Sendable, Hashable, CaseIterable {
  /// The device did what Xid expects.
  case asExpected = "as expected"
  /// The device did something else: what Xid relies on does not hold, or the setup is wrong.
  case unexpected = "UNEXPECTED"
  /// The check needs a step from the person (an enrollment change), then another run.
  case waiting = "waiting for you"
  /// The check cannot run here (no Secure Enclave in the Simulator, no biometry enrolled, …).
  case skipped = "skipped"
  /// The check has not run, or its prompt was cancelled.
  case notRun = "not run"
}

/// The processes that run checks.
public enum DiagnosticsProcess: String, Codable, Sendable, Hashable, CaseIterable {
  /// The app: checks 1 to 3, and the preparation of the extensions' checks.
  case app
  /// The App Intents extension ("Run Xid Diagnostics").
  case intent
  /// The widget extension, when the app asks it to reload.
  case widget
}

/// One check's outcome: its verdict, what was seen, and what to do next.
public struct DiagnosticsResult: Codable, Sendable, Hashable {
  /// The check.
  public var check: DiagnosticsCheck
  /// How it came out.
  public var verdict: DiagnosticsVerdict
  /// What was seen, one line each ("LARightStore.right(forIdentifier:): …").
  public var observed: [String]
  /// What the outcome means, or what the person does next; `nil` when nothing needs saying.
  public var next: String?
  /// When it ran; `nil` when it has not.
  public var ranAt: Date?
  /// Where it ran.
  public var ranIn: [DiagnosticsProcess]

  /// Creates a result.
  public init(
    check: DiagnosticsCheck, verdict: DiagnosticsVerdict, observed: [String] = [], next: String? = nil,
    ranAt: Date? = nil, ranIn: [DiagnosticsProcess] = []
  ) {
    self.check = check
    self.verdict = verdict
    self.observed = observed
    self.next = next
    self.ranAt = ranAt
    self.ranIn = ranIn
  }

  /// A check that has not run.
  public static func notRun(_ check: DiagnosticsCheck, next: String? = nil) -> DiagnosticsResult {
    DiagnosticsResult(check: check, verdict: .notRun, next: next)
  }
}

/// One use of a key that needs the user, with a context evaluated before.
public enum KeyUse: Codable, Sendable, Hashable {
  /// It worked: decrypting gave back the sealed bytes, or the signature verifies.
  case succeeded
  /// It returned, but with other bytes than sealed, or a signature that does not verify.
  case wrongResult
  /// It failed.
  case failed(ObservedError)
  /// It was not tried, since an earlier step failed.
  case notTried

  /// One line for the report.
  public var text: String {
    switch self {
    case .succeeded: "succeeded"
    case .wrongResult: "returned a wrong result"
    case .failed(let error): "failed: \(error)"
    case .notTried: "not tried"
    }
  }

  /// The error, when it failed.
  public var error: ObservedError? {
    if case .failed(let error) = self { return error }
    return nil
  }
}
