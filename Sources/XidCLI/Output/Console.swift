import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a command writes: standard output for results (data a script may capture), standard error
/// for everything meant for the person at the terminal (instructions, progress, errors).
struct Console: Sendable {
  /// Writes bytes to standard output.
  let stdout: @Sendable (Data) -> Void
  /// Writes bytes to standard error.
  let stderr: @Sendable (Data) -> Void
  /// Whether standard error is a terminal: progress is then animated, otherwise plain lines.
  let stderrIsTerminal: Bool

  /// The process's standard output and error.
  static func standard() -> Console {
    Console(
      stdout: { FileHandle.standardOutput.write($0) },
      stderr: { FileHandle.standardError.write($0) },
      stderrIsTerminal: isatty(STDERR_FILENO) == 1)
  }

  /// Writes `text` to standard output.
  func writeOut(_ text: String) { stdout(Data(text.utf8)) }

  /// Writes `text` to standard error.
  func writeErr(_ text: String) { stderr(Data(text.utf8)) }

  /// Writes `line` and a newline to standard output.
  func out(_ line: String = "") { writeOut(line + "\n") }

  /// Writes `line` and a newline to standard error.
  func err(_ line: String = "") { writeErr(line + "\n") }
}
