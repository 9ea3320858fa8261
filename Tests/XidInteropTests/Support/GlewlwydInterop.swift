import Testing

/// Every suite against glewlwyd, one test at a time: glewlwyd (SQLite behind it) was seen answering
/// `server_error` at its authorization endpoint while several sign-ins ran at once, which would test
/// the provider's concurrency rather than Xid.
@Suite("Interop with glewlwyd", .serialized)
enum GlewlwydInterop {}
