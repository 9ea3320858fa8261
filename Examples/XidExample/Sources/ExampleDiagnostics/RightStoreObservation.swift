import Foundation

/// What check 1 saw: `LARightStore`'s answers for a right that was never saved, and how Xid's
/// `PersistedRightStore` read them.
public struct RightStoreObservation: Codable, Sendable, Hashable {
  /// What `PersistedRightStore.key(identifier:)` gave.
  public enum XidLookup: Codable, Sendable, Hashable {
    /// `nil`: no credential.
    case missing
    /// A credential (under a new random identifier: never expected).
    case found
    /// It threw.
    case failed(ObservedError)
  }

  /// The error of `LARightStore.shared.right(forIdentifier:)`; `nil` when it returned a right.
  public var lookup: ObservedError?
  /// The error of `LARightStore.shared.removeRight(forIdentifier:)`; `nil` when it succeeded.
  public var removal: ObservedError?
  /// What `PersistedRightStore().key(identifier:)` gave.
  public var xidLookup: XidLookup
  /// The error of `PersistedRightStore().remove(identifier:)`; `nil` when it succeeded.
  public var xidRemoval: ObservedError?

  /// Creates the observation.
  public init(lookup: ObservedError?, removal: ObservedError?, xidLookup: XidLookup, xidRemoval: ObservedError?) {
    self.lookup = lookup
    self.removal = removal
    self.xidLookup = xidLookup
    self.xidRemoval = xidRemoval
  }

  /// The check's outcome, for a run at `date`.
  public func result(at date: Date) -> DiagnosticsResult {
    let xidLookupText =
      switch xidLookup {
      case .missing: "nil (no credential)"
      case .found: "a credential"
      case .failed(let error): "failed: \(error)"
      }
    let observed = [
      "LARightStore.right(forIdentifier:): " + (lookup.map { "failed: \($0)" } ?? "returned a right"),
      "LARightStore.removeRight(forIdentifier:): " + (removal.map { "failed: \($0)" } ?? "succeeded"),
      "PersistedRightStore.key(identifier:): " + xidLookupText,
      "PersistedRightStore.remove(identifier:): " + (xidRemoval.map { "failed: \($0)" } ?? "succeeded"),
    ]
    var problems: [String] = []
    if let lookup {
      if !lookup.isPrivateLocalAuthenticationCode {
        problems.append("the lookup's error is not of LocalAuthentication's domain with a private code")
      }
    } else {
      problems.append("a right was found under an identifier that was never saved")
    }
    if let removal, !removal.isPrivateLocalAuthenticationCode {
      problems.append("the removal's error is not of LocalAuthentication's domain with a private code")
    }
    if xidLookup != .missing { problems.append("PersistedRightStore does not read the answer as no credential") }
    if xidRemoval != nil { problems.append("PersistedRightStore reports the removal of a missing right as a failure") }
    let verdict: DiagnosticsVerdict = problems.isEmpty ? .asExpected : .unexpected
    let next: String? =
      problems.isEmpty
      ? lookup.map { "Xid's reading holds: a missing right is \($0.domain) code \($0.code)." }
      : problems.joined(separator: "; ")
        + ". Report it: PresenceFailure.meansMissingRight must learn this answer."
    return DiagnosticsResult(
      check: .rightStoreMissingRight, verdict: verdict, observed: observed, next: next, ranAt: date, ranIn: [.app])
  }
}
