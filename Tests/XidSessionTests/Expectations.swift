import Testing
import Xid

/// Expects `body` to throw an ``XidError`` with `code`, and returns it for further checks.
@discardableResult
func expectXidError<R>(
  _ code: XidError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R
) -> XidError? {
  do {
    _ = try body()
    Issue.record("expected XidError(\(code)), but nothing was thrown", sourceLocation: sourceLocation)
  } catch let error as XidError {
    LeakRegistry.current?.record(error)
    #expect(error.code == code, "expected \(code), got \(error)", sourceLocation: sourceLocation)
    return error
  } catch {
    Issue.record("expected XidError(\(code)), got \(error)", sourceLocation: sourceLocation)
  }
  return nil
}

/// The async variant of ``expectXidError(_:sourceLocation:_:)``.
@discardableResult
func expectXidError<R>(
  _ code: XidError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> R
) async -> XidError? {
  do {
    _ = try await body()
    Issue.record("expected XidError(\(code)), but nothing was thrown", sourceLocation: sourceLocation)
  } catch let error as XidError {
    LeakRegistry.current?.record(error)
    #expect(error.code == code, "expected \(code), got \(error)", sourceLocation: sourceLocation)
    return error
  } catch {
    Issue.record("expected XidError(\(code)), got \(error)", sourceLocation: sourceLocation)
  }
  return nil
}
