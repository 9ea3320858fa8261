// Test support only: the module is empty where Swift Testing is absent (the iOS compile check
// builds every regular target, and has no Testing module).
#if canImport(Testing)
  import Testing
  import XidJOSE

  /// Who else wants to see the errors the expectations below catch: the session tests' check that no
  /// secret reaches an error installs a recorder for the duration of a test.
  public enum ObservedErrors {
    /// Called with every ``XidError`` an expectation catches, when set.
    @TaskLocal public static var recorder: (@Sendable (XidError) -> Void)?
  }

  /// Expects `body` to throw an ``XidError`` with `code`, and returns it for further checks. A value
  /// returned instead, or another error, is recorded as an issue (the value itself is not printed: it
  /// may be a token).
  @discardableResult
  public func expectXidError<R>(
    _ code: XidError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R
  ) -> XidError? {
    do {
      _ = try body()
      Issue.record("expected XidError(\(code)), but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as XidError {
      ObservedErrors.recorder?(error)
      #expect(error.code == code, "expected \(code), got \(error)", sourceLocation: sourceLocation)
      return error
    } catch {
      Issue.record("expected XidError(\(code)), got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
    }
    return nil
  }

  /// The asynchronous form of ``expectXidError(_:sourceLocation:_:)-(_,_,()->R)``.
  @discardableResult
  public func expectXidError<R>(
    _ code: XidError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> R
  ) async -> XidError? {
    do {
      _ = try await body()
      Issue.record("expected XidError(\(code)), but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as XidError {
      ObservedErrors.recorder?(error)
      #expect(error.code == code, "expected \(code), got \(error)", sourceLocation: sourceLocation)
      return error
    } catch {
      Issue.record("expected XidError(\(code)), got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
    }
    return nil
  }
#endif
