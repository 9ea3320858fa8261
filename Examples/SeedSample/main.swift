// The seed's sample code, unchanged: its Quick start and its custom storage adapter. This target is
// compiled in Swift 5 language mode (Package.swift), so a change that breaks source compatibility for
// apps fails the build. It is never run.
import Foundation
import Xid

final class UserDefaultsTokenStorage: TokenStorageAdapter {
  private let defaults = UserDefaults.standard

  func save(key: String, value: String) throws {
    defaults.set(value, forKey: key)
  }

  func load(key: String) throws -> String? {
    defaults.string(forKey: key)
  }

  func delete(key: String) throws {
    defaults.removeObject(forKey: key)
  }
}

func quickStart() async throws {
  Xid.shared.configure(
    options: XidConfiguration(
      issuer: URL(string: "https://accounts.example.com")!,
      clientId: "my-app",
      redirectUri: URL(string: "com.example.app:/oauth/callback")!,
      scopes: ["openid", "profile", "email"]
    )
  )
  Xid.shared.setTokenStorage(UserDefaultsTokenStorage())

  let session = try await Xid.shared.signIn(options: SignInOptions())
  print("Signed in as \(session.subject)")

  if let session = try await Xid.shared.getSession() {
    print("Session for \(session.subject)")
  }
  let accessToken = try await Xid.shared.getAccessToken(forceRefresh: false)
  _ = accessToken
  try await Xid.shared.signOut(callEndSession: true)
}

func handle(url: URL) async {
  do {
    let session = try await Xid.shared.handleRedirect(url: url)
    print("Signed in as \(session.subject)")
  } catch {
    print("Sign-in failed: \(error)")
  }
}

_ = quickStart
_ = handle
