import Foundation
import Xid

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// A ``RefreshTokenSealer`` without a device: the sealed form is the token reversed behind `sealed.`.
/// Sealing a refreshed token (not a sign-in's) can wait at a ``Gate``, as the vault hop of a refresh
/// does, or fail a number of times, as a presence key does that is looked up after the device locked.
final class TestSealer: RefreshTokenSealer, @unchecked Sendable {
  /// Where the sealing of a refreshed token waits, when set.
  let gate: Gate?
  private let failures = LockedValue(0)

  init(gate: Gate? = nil) { self.gate = gate }

  /// Makes the next `count` seals of a refreshed token fail with `storageLocked`.
  func failNextSeals(_ count: Int) { failures.set(count) }

  func sealWithNewKey(_ refreshToken: String, besides live: String?) async throws -> RefreshTokenVault.Sealed {
    RefreshTokenVault.Sealed(text: Self.sealed(refreshToken), madeKey: true, biometryState: nil)
  }

  func seal(_ refreshToken: String, withKeyOf previous: String?) async throws -> RefreshTokenVault.Sealed {
    await gate?.wait()
    let fail = failures.update { count -> Bool in
      guard count > 0 else { return false }
      count -= 1
      return true
    }
    if fail { throw XidError(.storageLocked, "the test sealer's key cannot be read while the device is locked") }
    return RefreshTokenVault.Sealed(text: Self.sealed(refreshToken), madeKey: false, biometryState: nil)
  }

  func open(_ sealed: String, biometryState: String?) async throws -> String { Self.opened(sealed) }

  func openWithoutAsking(_ sealed: String) async -> String? { Self.opened(sealed) }

  func deleteKeys(except kept: String?) async throws {}

  func deleteKey(of sealed: String) async throws {}

  /// The sealed form of `refreshToken`.
  static func sealed(_ refreshToken: String) -> String { "sealed." + String(refreshToken.reversed()) }

  static func opened(_ sealed: String) -> String { String(sealed.dropFirst("sealed.".count).reversed()) }
}
