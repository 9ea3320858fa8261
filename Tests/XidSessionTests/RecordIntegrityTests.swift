import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidCore

/// What becomes of stored records that this configuration or this version of Xid did not write.
@Suite(.noSecretLeaks)
struct RecordIntegrityTests {
  @Test func aRecordOfAnUnknownFormatIsReportedByTheFacadeAndRemovedOnlyBySignOut() async throws {
    let harness = try SessionHarness()
    let text = #"{"format":2,"version":3,"sealed":"x"}"#
    try harness.storage.save(key: harness.recordKey, value: text)
    await expectXidError(.unsupportedRecordFormat) { try await harness.xid.getSession() }
    await expectXidError(.unsupportedRecordFormat) { try await harness.xid.getAccessToken() }
    #expect(try harness.storage.load(key: harness.recordKey) == text)
    try await harness.xid.signOut()
    #expect(try harness.storage.load(key: harness.recordKey) == nil)
  }
}
