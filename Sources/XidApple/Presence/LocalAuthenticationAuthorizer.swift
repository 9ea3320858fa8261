#if canImport(LocalAuthentication) && canImport(Security) && !os(watchOS) && !os(tvOS)
  import Foundation
  @preconcurrency import LocalAuthentication
  import XidCore

  /// The session lock's authorizer on Apple platforms: one `LARight` (iOS 16, macOS 13) of a
  /// requirement, living in this process. `Xid` makes one for ``PresenceOptions/sessionLock``.
  ///
  /// Its errors are ``XidError``s: `LAError.userCancel` is ``XidError/Code/authenticationCancelled``,
  /// `.biometryLockout` ``XidError/Code/biometryLockout``, and so on for every code (see
  /// `docs/local-authentication.md`).
  public final class LocalAuthenticationAuthorizer: PresenceAuthorizer, @unchecked Sendable {
    // `LARight` is not marked Sendable in the SDK. Its methods complete on a private queue of the
    // framework and keep its state there; this class only calls them, from any thread.
    private let right: LARight
    /// The requirement the right was made with.
    public let requirement: PresenceRequirement

    /// Makes the right for `requirement`.
    public init(requirement: PresenceRequirement = .biometryWithPasscodeFallback) {
      self.requirement = requirement
      right = LARight(requirement: requirement.authenticationRequirement)
    }

    public func checkCanAuthorize() async throws {
      do {
        try await right.checkCanAuthorize()
      } catch {
        throw PresenceFailure(error, operation: "check the device").error
      }
    }

    public func authorize(localizedReason: String) async throws {
      do {
        try await right.authorize(localizedReason: localizedReason)
      } catch {
        throw PresenceFailure(error, operation: "authorize").error
      }
    }

    public func deauthorize() async {
      await right.deauthorize()
    }

    /// Checks `requirement` with a right of its own (`LARight.checkCanAuthorize()`), without asking.
    public func checkCanAuthorize(requirement: PresenceRequirement) async throws {
      do {
        try await LARight(requirement: requirement.authenticationRequirement).checkCanAuthorize()
      } catch {
        throw PresenceFailure(error, operation: "check the device").error
      }
    }

    /// `LAContext.evaluatedPolicyDomainState`, read after `canEvaluatePolicy` without asking.
    public func biometryDomainState() -> [UInt8]? {
      LocalAuthenticationContext.biometryDomainState()
    }
  }
#endif
