// What the benchmark programs share: messages, usage errors, failures, and keeping results alive.
import Foundation

/// Writes `message` and a newline to standard error.
public func printError(_ message: String) {
  FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Reports a usage error of `program` and exits with status 2.
public func usage(_ program: String, _ message: String) -> Never {
  printError("\(program): \(message) (see --help)")
  exit(2)
}

/// A benchmark that found wrong results: it stops rather than report a rate for work that failed.
public struct BenchmarkFailure: Error, CustomStringConvertible {
  /// What went wrong.
  public let description: String

  /// A failure described by `description`.
  public init(description: String) { self.description = description }
}

/// Every timed operation feeds a value derived from its result in here, and the total is printed at
/// the end, so the optimiser cannot drop any of the work.
nonisolated(unsafe) public var sink = 0

/// Adds `value` to ``sink``.
@inline(never)
public func blackHole(_ value: Int) {
  sink &+= value
}
