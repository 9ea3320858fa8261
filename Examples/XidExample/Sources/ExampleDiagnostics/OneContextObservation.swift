import Foundation

/// What check 2 saw: two rounds of one evaluated context used for decrypting and for signing with
/// Secure Enclave keys.
public struct OneContextObservation: Codable, Sendable, Hashable {
  /// One round: one context, evaluated (one prompt) for one key, then used with both keys.
  public struct Round: Codable, Sendable, Hashable {
    /// The evaluation's error; `nil` when the user was confirmed.
    public var evaluation: ObservedError?
    /// Opening the sealed bytes with the context.
    public var decryption: KeyUse
    /// Signing with the context, and verifying the signature.
    public var signature: KeyUse

    /// Creates a round.
    public init(evaluation: ObservedError?, decryption: KeyUse, signature: KeyUse) {
      self.evaluation = evaluation
      self.decryption = decryption
      self.signature = signature
    }
  }

  /// Whether the device has a Secure Enclave (the Simulator has none).
  public var hasSecureEnclave: Bool
  /// Why the keys could not be made; `nil` when they were.
  public var setup: ObservedError?
  /// The round whose context was evaluated for decrypting (as a refresh does), then signed with.
  public var evaluatedForDecrypting: Round?
  /// The round whose context was evaluated for signing (as a request's proof does), then decrypted
  /// with.
  public var evaluatedForSigning: Round?

  /// Creates the observation.
  public init(
    hasSecureEnclave: Bool, setup: ObservedError? = nil, evaluatedForDecrypting: Round? = nil,
    evaluatedForSigning: Round? = nil
  ) {
    self.hasSecureEnclave = hasSecureEnclave
    self.setup = setup
    self.evaluatedForDecrypting = evaluatedForDecrypting
    self.evaluatedForSigning = evaluatedForSigning
  }

  /// The codes of a use that needed a prompt of its own and could not show it.
  static let neededAPrompt: Set<String> = ["userPresenceRequired", "authenticationInterrupted"]

  /// The check's outcome, for a run at `date`.
  public func result(at date: Date) -> DiagnosticsResult {
    func result(_ verdict: DiagnosticsVerdict, _ observed: [String], _ next: String?) -> DiagnosticsResult {
      DiagnosticsResult(
        check: .oneContextDecryptsAndSigns, verdict: verdict, observed: observed, next: next, ranAt: date,
        ranIn: [.app])
    }
    guard hasSecureEnclave else {
      return result(
        .skipped, ["Secure Enclave: none"], "This device has no Secure Enclave (the Simulator): run it on an iPhone.")
    }
    if let setup {
      let observed = ["making the keys: failed: \(setup)"]
      if setup.isXid("passcodeNotSet") { return result(.skipped, observed, "Set a device passcode, then run again.") }
      return result(.unexpected, observed, "The Secure Enclave keys could not be made.")
    }
    let rounds: [(name: String, round: Round?)] = [
      ("evaluated for decrypting", evaluatedForDecrypting), ("evaluated for signing", evaluatedForSigning),
    ]
    var observed: [String] = []
    var verdict = DiagnosticsVerdict.asExpected
    var problems: [String] = []
    for (name, round) in rounds {
      guard let round else {
        observed.append("context \(name): not run")
        verdict = verdict == .unexpected ? .unexpected : .notRun
        continue
      }
      if let evaluation = round.evaluation {
        observed.append("context \(name): the prompt failed: \(evaluation)")
        if evaluation.isCancellation {
          if verdict != .unexpected { verdict = .notRun }
        } else {
          verdict = .unexpected
          problems.append("the prompt of the context \(name) failed")
        }
        continue
      }
      observed.append(
        "context \(name): confirmed; decrypt \(round.decryption.text); sign \(round.signature.text)")
      for (use, outcome) in [("decrypting", round.decryption), ("signing", round.signature)]
      where outcome != .succeeded {
        verdict = .unexpected
        if let error = outcome.error, error.isXid(oneOf: Self.neededAPrompt) {
          problems.append("\(use) with the context \(name) needed a prompt of its own")
        } else {
          problems.append("\(use) with the context \(name) \(outcome.text)")
        }
      }
    }
    let next: String? =
      switch verdict {
      case .asExpected: "One context covers both keys, whichever was evaluated: one prompt per call holds."
      case .notRun: "A prompt was cancelled: run it again and confirm both prompts."
      default:
        problems.joined(separator: "; ")
          + ". Report it: the stricter mode (protectsDPoPKey) would ask twice, or fail, in one call."
      }
    return result(verdict, observed, next)
  }
}
