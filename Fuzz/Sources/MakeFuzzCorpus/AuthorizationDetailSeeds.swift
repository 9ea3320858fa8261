/// Seeds for FuzzAuthorizationDetails: RFC 9396's examples, shapes at the edges of the rules, and
/// a token record's `authorization_details` and `resources` for FuzzTokenRecord.
enum AuthorizationDetailSeeds {
  static let all: [(String, String)] = [
    (
      "rfc9396-payment",
      #"[{"type":"payment_initiation","actions":["initiate","status","cancel"],"locations":["https://example.com/payments"],"instructedAmount":{"currency":"EUR","amount":"123.50"},"creditorName":"Merchant A","creditorAccount":{"iban":"DE02100100109307118603"},"remittanceInformationUnstructured":"Ref Number Merchant"}]"#
    ),
    (
      "rfc9396-account-information",
      #"[{"type":"account_information","actions":["list_accounts","read_balances","read_transactions"],"locations":["https://example.com/accounts"]},{"type":"payment_initiation","identifier":"p-1","privileges":["admin"],"datatypes":["contacts"]}]"#
    ),
    ("empty", "[]"),
    ("no-type", #"[{"actions":["read"]}]"#),
    ("bad-actions", #"[{"type":"t","actions":"read"}]"#),
    ("bad-identifier", #"[{"type":"t","identifier":[1]}]"#),
    ("nested", #"[{"type":"t","x":{"y":[{"z":"\u00e9\ud83d\ude00"}]}}]"#),
    ("not-array", #"{"type":"t"}"#),
    ("null", "null"),
  ]
}
