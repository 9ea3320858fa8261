import Xid

/// The exit codes of `xid`, documented in its help.
package enum ExitCode: Int32, Sendable, Equatable {
  /// Success.
  case success = 0
  /// A failure not covered below.
  case failure = 1
  /// The command line is wrong: an unknown command or option, or a bad value.
  case usage = 2
  /// Nobody is signed in for the profile, or the provider ended the session: run `xid login`.
  case signInRequired = 3
  /// The provider could not be reached, or failed in a way worth retrying; the session is kept.
  case network = 4
  /// The server asks for a stronger or more recent sign-in (RFC 9470 step-up); the session is kept,
  /// and standard error names the `xid login` that satisfies it.
  case stepUpRequired = 5

  /// The exit code for an error Xid threw.
  package init(for error: XidError) {
    switch error.code {
    case .signInRequired, .sessionExpired: self = .signInRequired
    case .networkFailure: self = .network
    case .stepUpRequired: self = .stepUpRequired
    default: self = error.isTransient ? .network : .failure
    }
  }
}

/// A failure a command reports itself, with the exit code and message to show.
struct CommandFailure: Error {
  /// How the process ends.
  let exitCode: ExitCode
  /// What went wrong and what to do, printed on standard error.
  let message: String

  init(_ exitCode: ExitCode, _ message: String) {
    self.exitCode = exitCode
    self.message = message
  }
}

extension XidError {
  /// What the user can do about this error, when there is more to say than its reason.
  func advice(profile: ProfileName) -> String? {
    switch ExitCode(for: self) {
    case .signInRequired: return "Sign in with: xid login\(profile.flag)"
    case .stepUpRequired:
      let requirement = stepUp ?? StepUpRequirement(maxAge: .zero)
      return "The server asks for \(requirement). Sign in again as it asks with:\n  "
        + LoginOptions.stepUpCommand(for: requirement, profile: profile)
    case .network: return "Check that the provider can be reached, and try again; a stored session is kept."
    default: break
    }
    switch code {
    case .timedOut: return "Run the command again, and finish signing in in the browser in time."
    case .issuerMismatch: return "Use the issuer exactly as the provider's discovery document states it."
    case .insecureURL: return "Use an https URL (http is allowed only for 127.0.0.1 and localhost)."
    case .storageFailure: return "Check the permissions of the state directory, or set XID_STATE_DIR."
    default: return nil
    }
  }
}
