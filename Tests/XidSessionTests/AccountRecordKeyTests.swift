import Foundation
import Testing

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// The records kept beside an account's tokens (pending sign-ins, DPoP nonces) are named after the
/// token record's key; those names are in users' storage and must not change.
@Suite struct AccountRecordKeyTests {
  @Test func theRecordsBesideAnAccountsTokensKeepTheNamesTheyWereStoredUnder() {
    let primary = TokenRecord.storageKey(issuer: "https://op.example", clientId: "app", account: "default")
    let overflow = TokenRecord.overflowStorageKey(issuer: "https://op.example", clientId: "app", account: "default")
    for key in [primary, overflow] {
      // What the names were made with before: the key without its "xid.tokens." prefix.
      let earlier = key.replacingOccurrences(of: "xid.tokens.", with: "")
      #expect(TokenRecord.accountPart(ofStorageKey: key) == earlier)
      #expect(DPoPNonceCache.storageKey(accountKey: key) == "xid.dpop-nonces." + earlier)
    }
    #expect(TokenRecord.accountPart(ofStorageKey: primary).count == 16, "16 hexadecimal digits")
  }
}
