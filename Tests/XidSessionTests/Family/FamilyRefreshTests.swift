import Foundation
import Testing
import XidTestSupport
import XidTesting

@testable import XidProtocol
@testable import XidSession

/// The family's own app refreshing: it sends the family's device secret, so that the provider keeps
/// it or rotates it (rather than minting a new one at each refresh), and a rotated one is kept with
/// the ID token that binds it, as a pair, unless the family signed out meanwhile.
@Suite(.noSecretLeaks)
struct FamilyRefreshTests {
  typealias World = AppFamilyTests.World

  @Test func aRefreshSendsTheFamilysDeviceSecretSoTheProviderKeepsIt() async throws {
    let world = try World()
    let (first, _) = try await world.signedInFamily()
    let before = try #require(try world.familyRecords().first)
    let issued = await world.provider.issuedDeviceSecrets.count
    _ = try await first.accessToken(forceRefresh: true)
    // A provider that gets no device_secret in a refresh mints a new one (draft 07 §3.4); sent, it
    // is kept, and the family's record stays as it was.
    #expect(await world.provider.issuedDeviceSecrets.count == issued)
    #expect(try world.familyRecords().first == before)
    #expect(await world.provider.isDeviceSecretValid(before.deviceSecret))
  }

  @Test func aDeviceSecretRotatedAtARefreshReplacesTheFamilysSecretAndIDTokenTogether() async throws {
    let world = try World { $0.nativeSSO.rotatesDeviceSecretOnRefresh = true }
    let (first, second) = try await world.signedInFamily()
    let before = try #require(try world.familyRecords().first)
    _ = try await first.accessToken(forceRefresh: true)
    let after = try #require(try world.familyRecords().first)
    #expect(after.deviceSecret != before.deviceSecret)
    #expect(after.idToken != before.idToken)
    #expect(after.familySignInID == before.familySignInID)
    try IDToken(restoring: after.idToken).checkDeviceSecret(after.deviceSecret, rule: .atHashRule)
    #expect(await !world.provider.isDeviceSecretValid(before.deviceSecret))
    // The sibling signs in with the new pair, and the family app stays linked to it.
    #expect(try await second.signIn(from: try #require(try second.familyAccounts().first)).signedInFromFamily)
    #expect(try await first.session()?.familyAccountID == after.storageKey)
  }

  @Test(arguments: [TestProvider.Misbehavior.wrongDeviceSecretHash, .missingDeviceSecretHash])
  func aRotatedDeviceSecretTheNewIDTokenDoesNotBindIsNotKeptAndTheRefreshIs(misbehavior: TestProvider.Misbehavior)
    async throws
  {
    let world = try World { $0.nativeSSO.rotatesDeviceSecretOnRefresh = true }
    let (first, _) = try await world.signedInFamily()
    let before = try world.familyRecords()
    let token = try await first.accessToken(forceRefresh: false)
    try await world.provider.misbehave(misbehavior, .once)
    // The refresh's own tokens are this app's session: kept. The pair is not a pair: the family's
    // record stays as it was.
    #expect(try await first.accessToken(forceRefresh: true) != token)
    #expect(try world.familyRecords() == before)
  }

  @Test func aFamilySignOutWhileTheFamilysAppRefreshesIsNotUndoneByTheRotatedPair() async throws {
    let world = try World { $0.nativeSSO.rotatesDeviceSecretOnRefresh = true }
    let (first, _) = try await world.signedInFamily()
    await world.provider.resetCounters()
    await world.provider.injectFault(.delay(.milliseconds(300)), at: .token)
    let refresh = Task { try await first.accessToken(forceRefresh: true) }
    #expect(try await pollUntil { await world.provider.counters.refreshes == 1 })
    // Another process of the family's app (an extension, say) signs the whole family out.
    let other = try world.engine(AppFamilyTests.familyApp)
    _ = try await other.signOut(callEndSession: false, userAgent: nil, scope: .family)
    _ = try? await refresh.value
    #expect(try world.familyRecords().isEmpty)
    #expect(try await other.familyAccounts().isEmpty)
  }
}
