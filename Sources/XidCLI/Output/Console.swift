import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a command writes: standard output for results (data a script may capture), standard error
/// for everything meant for the person at the terminal (instructions, progress, errors).
///
/// Text goes through ``TerminalText/escaped(_:)``: no control character written as text reaches the
/// terminal. Only ``redrawLine(_:)`` sends one (to redraw a spinner), and ``stdout`` and ``stderr``
/// take raw bytes for data that is passed on as it came (the body `xid request` prints).
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

  /// Writes `text` to standard output, control characters escaped.
  func writeOut(_ text: String) { stdout(Data(TerminalText.escaped(text).utf8)) }

  /// Writes `text` to standard error, control characters escaped.
  func writeErr(_ text: String) { stderr(Data(TerminalText.escaped(text).utf8)) }

  /// Erases the line of standard error the cursor is on and writes `text` (control characters
  /// escaped) in its place; with an empty `text`, just erases it. For a terminal only.
  func redrawLine(_ text: String = "") { stderr(Data(("\r\u{1B}[2K" + TerminalText.escaped(text)).utf8)) }

  /// Writes `line` and a newline to standard output.
  func out(_ line: String = "") { writeOut(line + "\n") }

  /// Writes `line` and a newline to standard error.
  func err(_ line: String = "") { writeErr(line + "\n") }
}
