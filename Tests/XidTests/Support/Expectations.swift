import Testing
import Xid

/// Runs `body` and expects it to throw an ``XidError`` with `code`; returns the error for further checks.
@discardableResult
func expectXidError<R>(
  _ code: XidError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> R
) async -> XidError? {
  do {
    _ = try await body()
    Issue.record("expected XidError(\(code)), but nothing was thrown", sourceLocation: sourceLocation)
  } catch let error as XidError {
    #expect(error.code == code, "expected \(code), got \(error)", sourceLocation: sourceLocation)
    return error
  } catch {
    Issue.record("expected XidError(\(code)), got \(error)", sourceLocation: sourceLocation)
  }
  return nil
}

/// Collects values from concurrently running handlers.
actor Recorder<Value: Sendable> {
  private(set) var values: [Value] = []

  func record(_ value: Value) { values.append(value) }
}
