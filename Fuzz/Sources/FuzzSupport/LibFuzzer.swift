import CLibFuzzer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The entry point of a fuzz target and the checks its properties are made of.
///
/// A fuzz target is an executable whose `@main` calls ``run(_:)`` with its
/// `@_cdecl("LLVMFuzzerTestOneInput")` function. Package.swift says why the target has a `main` of
/// its own instead of libFuzzer's.
public enum LibFuzzer {
  /// The function libFuzzer calls with each input: its bytes and their count; returns 0.
  public typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

  /// Runs libFuzzer's driver with the process's arguments (libFuzzer's flags, corpus directories or
  /// files to replay) on `testOneInput`, and exits with its status.
  public static func run(_ testOneInput: TestOneInput) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
  }

  /// Whether the run must be deterministic (`XID_FUZZ_DETERMINISTIC=1`, set by `fuzz.sh --smoke`):
  /// then a target leaves out the checks whose coverage depends on randomness (an ECDSA signature),
  /// so that the same inputs always take the same paths.
  public static let isDeterministic: Bool = getenv("XID_FUZZ_DETERMINISTIC").map { String(cString: $0) == "1" } ?? false

  /// The input as a buffer (empty for a null pointer, as libFuzzer may pass for an empty input).
  public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> UnsafeBufferPointer<UInt8> {
    guard let data, size > 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
    return UnsafeBufferPointer(start: data, count: size)
  }
}

/// Stops the process (a crash libFuzzer reports, with the input saved as an artifact) unless
/// `condition` holds.
///
/// - Parameter property: which property failed, written by the target. It must never contain the
///   input or anything taken from it (a token, a key): the input is in the artifact file.
public func fuzzCheck(
  _ condition: @autoclosure () -> Bool, _ property: @autoclosure () -> String, file: StaticString = #fileID,
  line: UInt = #line
) {
  guard condition() else {
    fatalError("fuzz property violated: \(property())", file: file, line: line)
  }
}
