import Foundation
import Xid

/// The `xid` command-line tool: parses the arguments, runs the command, and tells the exit code.
///
/// The executable is one line: `exit(await XidCommandLine.main())`. Everything else lives here so
/// that it can be tested.
package enum XidCommandLine {
  /// Runs `xid` with `arguments` (by default the process's, the program's name first), and the
  /// process's environment and terminal.
  ///
  /// - Returns: the exit code (see ``ExitCode``).
  package static func main(arguments: [String]? = nil) async -> Int32 {
    let context = CLIContext.live()
    Interrupt.clearLineOnInterrupt(stderrIsTerminal: context.console.stderrIsTerminal)
    let arguments = arguments ?? ProcessInfo.processInfo.arguments
    return await run(Array(arguments.dropFirst()), context: context).rawValue
  }

  /// Runs the arguments after the program's name.
  static func run(_ arguments: [String], context: CLIContext) async -> ExitCode {
    let console = context.console
    if arguments.isEmpty {
      console.err(HelpText.overview)
      return .usage
    }
    do {
      let invocation = try ArgumentParser.parse(arguments)
      let profile = try context.profileName(for: invocation)
      return try await execute(invocation, profile: profile, context: context)
    } catch let error as UsageError {
      console.err(error.description)
      return .usage
    } catch let failure as CommandFailure {
      console.err("xid: \(failure.message)")
      return failure.exitCode
    } catch let error as XidError {
      // Xid's reasons speak to app developers ("call signIn()"); here the advice below says what to run.
      let reason = error.reason.replacingOccurrences(of: "; call signIn()", with: "")
        .replacingOccurrences(of: XidError.stepUpAdvice, with: "")
      console.err("xid: \(reason) [\(error.code)]")
      let profile = (try? ArgumentParser.parse(arguments)).flatMap { try? context.profileName(for: $0) }
      if let advice = error.advice(profile: profile ?? .default) { console.err(advice) }
      return ExitCode(for: error)
    } catch {
      console.err("xid: \(error)")
      return .failure
    }
  }

  private static func execute(_ invocation: Invocation, profile: ProfileName, context: CLIContext) async throws
    -> ExitCode
  {
    let verbose = invocation.verbose
    switch invocation.command {
    case .help(let name):
      context.console.out(name.flatMap(CommandCatalog.command(named:)).map(HelpText.command) ?? HelpText.overview)
      return .success
    case .demo(let serve):
      if serve { return try await DemoServer(console: context.console).run() }
      return try await DemoCommand(console: context.console, verbose: verbose).run()
    case .login(let options):
      return try await LoginCommand(options: options, profile: profile, verbose: verbose, context: context).run()
    case .status:
      return try await StatusCommand.run(profile: profile, context: context)
    case .token(let forceRefresh, let dpopProof, let resource):
      return try await TokenCommand.run(
        forceRefresh: forceRefresh, dpopProof: dpopProof, resource: resource, profile: profile, verbose: verbose,
        context: context)
    case .whoami(let json):
      return try await WhoamiCommand.run(json: json, profile: profile, verbose: verbose, context: context)
    case .request(let options):
      return try await RequestCommand.run(options, profile: profile, verbose: verbose, context: context)
    case .logout(let endSession, let browser, let family):
      return try await LogoutCommand.run(
        endSession: endSession, browser: browser, family: family, profile: profile, verbose: verbose,
        context: context)
    }
  }
}
