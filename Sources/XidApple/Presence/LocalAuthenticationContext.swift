#if canImport(LocalAuthentication) && canImport(Security) && !os(watchOS) && !os(tvOS)
  import Foundation
  @preconcurrency import LocalAuthentication
  import Security
  import XidCore

  /// An `LAContext` as a ``PresenceContext``: evaluated once with `evaluateAccessControl`, then passed
  /// to the keychain with `kSecUseAuthenticationContext`, so that one prompt covers every use of the
  /// key until ``invalidate()``.
  final class LocalAuthenticationContext: PresenceContext, @unchecked Sendable {
    // `LAContext` is not marked Sendable in the SDK; it is documented for use from any thread, runs its
    // evaluation on a private queue, and is only handed to the keychain here.
    let context = LAContext()

    /// Asks the user to allow `operation` with `accessControl`, showing `localizedReason`; afterwards
    /// the context never shows a prompt again (`interactionNotAllowed`), so a key operation that would
    /// need one fails instead of blocking.
    func evaluate(
      _ accessControl: SecAccessControl, operation: LAAccessControlOperation, localizedReason: String
    ) async throws {
      let allowed: Bool
      do {
        allowed = try await context.evaluateAccessControl(
          accessControl, operation: operation, localizedReason: localizedReason)
      } catch {
        throw PresenceFailure(error, operation: "confirm the user").error
      }
      guard allowed else { throw PresenceFailure.authenticationFailed.error }
      context.interactionNotAllowed = true
    }

    func invalidate() { context.invalidate() }

    /// Returns when the device can evaluate `requirement`'s policy (`canEvaluatePolicy`), without
    /// asking; throws why not.
    static func checkCanEvaluate(_ requirement: PresenceRequirement, operation: String) throws {
      var error: NSError?
      guard LAContext().canEvaluatePolicy(requirement.policy, error: &error) else {
        guard let error else { throw PresenceFailure.biometryNotAvailable.error }
        throw PresenceFailure(error, operation: operation).error
      }
    }

    /// `evaluatedPolicyDomainState` after `canEvaluatePolicy` for biometry, which sets it without
    /// asking; `nil` when biometry cannot be evaluated now (none, none enrolled, locked out).
    static func biometryDomainState() -> [UInt8]? {
      let context = LAContext()
      var error: NSError?
      guard context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error) else { return nil }
      return context.evaluatedPolicyDomainState.map { Array($0) }
    }
  }
#endif
