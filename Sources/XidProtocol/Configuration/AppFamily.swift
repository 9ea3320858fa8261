import Foundation

/// The apps of one developer that share one sign-in through OpenID Connect Native SSO for Mobile
/// Apps 1.0: once the user signs in to one of them, the others, each with its own client
/// identifier, sign in from that sign-in without a browser.
///
/// Every app of the family names the same family, and keeps its family records in one storage that
/// all of them read (on Apple platforms a keychain access group of the team, `ThisDeviceOnly`):
///
/// ```swift
/// configuration.identity.family = AppFamily(name: "com.example.apps")
/// ```
///
/// A sign-in of a family member asks for the `device_sso` scope and keeps what the provider answers
/// (its device secret, and the ID token that `ds_hash` binds to it) as the family's record of that
/// user.
///
/// Package-internal until the family's sign-in, sign-out and events that it configures are complete
/// (the family record, `FamilyRecord` in XidSession, is their first part).
public struct AppFamily: Sendable, Hashable, CustomStringConvertible {
  /// The scope that asks the provider for a device secret (draft 07 §3.1).
  public static let deviceSSOScope = "device_sso"

  /// The family's name, the same in every app of the family: it names the family's records and
  /// their lock. Reverse-DNS style, for example `com.example.apps`.
  public var name: String

  /// Creates a family named `name`.
  public init(name: String) { self.name = name }

  /// `AppFamily(name)`.
  public var description: String { "AppFamily(\(name))" }

  /// Checks the name: 1 to 128 characters of ASCII letters, digits, `.`, `-` and `_`, since it is part
  /// of storage keys and lock file names.
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` naming what to change.
  package func validate() throws {
    let allowed = name.utf8.allSatisfy { byte in
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
        return true
      default: return false
      }
    }
    guard !name.isEmpty, name.utf8.count <= 128, allowed else {
      throw XidError(
        .invalidConfiguration,
        "the app family's name must be 1 to 128 ASCII letters, digits, '.', '-' or '_' (for example com.example.apps), the same in every app of the family"
      )
    }
  }
}
