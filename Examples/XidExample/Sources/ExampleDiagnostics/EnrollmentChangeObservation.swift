import Foundation

/// What check 3 saw, in the run it was: the first run makes a `.biometryCurrentSet` key, then the
/// person changes the enrolled biometry, and a later run tries the key again.
public enum EnrollmentChangeObservation: Codable, Sendable, Hashable {
  /// How the enrolled biometry's state (`LAContext.evaluatedPolicyDomainState`) compares with the
  /// one of the key's making.
  public enum BiometryState: String, Codable, Sendable, Hashable {
    /// It differs: a face or finger was enrolled or removed.
    case changed
    /// It is the same.
    case unchanged
    /// It cannot be read now (no biometry enrolled any more, or locked out).
    case unreadable
  }

  /// The first run could not make the key (no biometry enrolled, no passcode, …).
  case couldNotPrepare(ObservedError)
  /// The first run made the key and opened its sealed bytes once: `baseline` (after the prompt's
  /// error, when it failed). `biometryStateReadable` says whether the state could be read.
  case prepared(prompt: ObservedError?, baseline: KeyUse, biometryStateReadable: Bool)
  /// A later run found the enrolled biometry as it was when the key was made (at `preparedAt`).
  case unchanged(preparedAt: Date)
  /// A later run after the state changed (or became unreadable): whether the key still existed, the
  /// prompt's error, and what opening the sealed bytes gave.
  case afterChange(
    preparedAt: Date, state: BiometryState, keyExists: Bool, prompt: ObservedError?, decryption: KeyUse)

  /// The codes that `RefreshTokenVault.open` turns into `presenceKeyInvalidated` when the state of
  /// the enrolled biometry differs from the one of the key's making (`biometryNotEnrolled` always).
  public static let codesOfAChangedBiometry: Set<String> = [
    "authenticationFailed", "biometryNotEnrolled", "storageFailure", "cryptoFailure",
  ]

  /// What Xid reports for a sealed refresh token whose opening failed with `error`, the state being
  /// `state`: `presenceKeyInvalidated` (sign in again) or the error's own code. Mirrors
  /// `RefreshTokenVault.open(_:biometryState:)`.
  public static func xidReport(for error: ObservedError, state: BiometryState) -> String {
    guard error.domain == ObservedError.xidDomain else { return "\(error.domain) \(error.code)" }
    if error.code == "presenceKeyInvalidated" { return error.code }
    guard codesOfAChangedBiometry.contains(error.code) else { return error.code }
    return error.code == "biometryNotEnrolled" || state == .changed ? "presenceKeyInvalidated" : error.code
  }

  /// The steps to change the enrolled biometry.
  public static let enrollmentSteps =
    "Now change the enrolled biometry: in Settings › Face ID & Passcode, tap Set Up an Alternate Appearance (or Reset Face ID and set it up again); with Touch ID, add a fingerprint or delete one. Then come back and run this check again."

  /// The check's outcome, for a run at `date`.
  public func result(at date: Date) -> DiagnosticsResult {
    func result(_ verdict: DiagnosticsVerdict, _ observed: [String], _ next: String?) -> DiagnosticsResult {
      DiagnosticsResult(
        check: .biometryEnrollmentChange, verdict: verdict, observed: observed, next: next, ranAt: date,
        ranIn: [.app])
    }
    switch self {
    case .couldNotPrepare(let error):
      let observed = ["making the .biometryCurrentSet key: failed: \(error)"]
      if error.isXid(oneOf: ["biometryNotEnrolled", "biometryUnavailable", "passcodeNotSet"]) {
        return result(.skipped, observed, "Set up Face ID or Touch ID (and a passcode), then run again.")
      }
      return result(.unexpected, observed, "The key could not be made.")
    case .prepared(let prompt, let baseline, let readable):
      var observed = [
        "made a .biometryCurrentSet key and sealed random bytes with it",
        "the enrolled biometry's state: " + (readable ? "read, and kept as a hash" : "unreadable"),
      ]
      if let prompt {
        observed.append("opening right away: the prompt failed: \(prompt)")
        if prompt.isCancellation { return result(.notRun, observed, "The prompt was cancelled: run again.") }
        return result(.unexpected, observed, "The new key could not be used right after it was made.")
      }
      observed.append("opening right away: \(baseline.text)")
      guard baseline == .succeeded else {
        return result(.unexpected, observed, "The new key did not open its own sealed bytes.")
      }
      return result(.waiting, observed, Self.enrollmentSteps)
    case .unchanged(let preparedAt):
      return result(
        .waiting,
        ["key made at \(DiagnosticsReport.timestamp(preparedAt)); the enrolled biometry's state: unchanged since"],
        "The enrolled biometry has not changed yet. " + Self.enrollmentSteps)
    case .afterChange(let preparedAt, let state, let keyExists, let prompt, let decryption):
      var observed = [
        "key made at \(DiagnosticsReport.timestamp(preparedAt)); the enrolled biometry's state: \(state.rawValue)",
        "the key: " + (keyExists ? "still in the keychain" : "gone"),
      ]
      guard keyExists else {
        observed.append("Xid reports: presenceKeyInvalidated (the key that sealed it no longer exists)")
        return result(.asExpected, observed, "The system deleted the key: Xid asks the user to sign in again.")
      }
      if let prompt {
        observed.append("the prompt failed: \(prompt)")
        if prompt.isCancellation {
          return result(.notRun, observed, "The prompt was cancelled: run again (the key is kept).")
        }
      } else {
        observed.append("the prompt: confirmed")
        observed.append("opening the sealed bytes: \(decryption.text)")
      }
      if prompt == nil && decryption == .succeeded {
        return result(
          .unexpected, observed,
          "The key still opened after the enrollment change: a .biometryCurrentSet key did not follow the enrolled biometry."
        )
      }
      guard let failure = prompt ?? decryption.error else {
        return result(.unexpected, observed, "Opening gave other bytes than were sealed.")
      }
      let report = Self.xidReport(for: failure, state: state)
      observed.append("Xid reports: \(report)")
      guard report == "presenceKeyInvalidated" else {
        return result(
          .unexpected, observed,
          "Xid would report \(report), not presenceKeyInvalidated: the user would be told to try again rather than to sign in again. Report the error above."
        )
      }
      return result(.asExpected, observed, "Xid asks the user to sign in again, as it should.")
    }
  }
}
