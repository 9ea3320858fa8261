import Foundation

/// Turns `xid`'s arguments into an ``Invocation``. Hand-written, with one rule set for every command:
///
/// - Options are `--name VALUE`, `--name=VALUE`, `-X VALUE` or `-XVALUE`; flags take no value.
/// - Global options (`--profile`, `--verbose`, `--help`) go before or after the command's name.
/// - `--` ends the options: what follows is positional, even when it starts with `-`.
/// - An option given twice is an error unless it is repeatable (`-H`).
///
/// Every mistake is a ``UsageError`` saying what is wrong and which `--help` to read.
package enum ArgumentParser {
  /// Parses the arguments after the program's name.
  ///
  /// - Throws: ``UsageError``.
  package static func parse(_ arguments: [String]) throws -> Invocation {
    let raw = try scan(arguments)
    let profile = raw.global["profile"]?.last
    if let profile { try validateProfileName(profile, command: raw.command?.name) }
    let verbose = raw.global["verbose"] != nil
    guard raw.global["help"] == nil else {
      return Invocation(.help(command: raw.command?.name ?? raw.helpTopic), profile: profile, verbose: verbose)
    }
    if raw.isHelpCommand {
      return Invocation(.help(command: raw.helpTopic), profile: profile, verbose: verbose)
    }
    guard let spec = raw.command else {
      throw UsageError("no command given; try 'xid demo' to see what Xid does")
    }
    return Invocation(try command(spec, raw), profile: profile, verbose: verbose)
  }

  /// Checks a profile name: it becomes a file name.
  static func validateProfileName(_ name: String, command: String?) throws {
    let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
    guard !name.isEmpty, name.count <= 64, !name.hasPrefix("."), name.unicodeScalars.allSatisfy(allowed.contains)
    else {
      throw UsageError(
        "the profile name \"\(name.prefix(80))\" is not allowed: use letters, digits, '.', '_' and '-', not starting with '.'",
        command: command)
    }
  }

  // MARK: - Scanning

  /// The arguments sorted into command, options and positionals, before their values are checked.
  struct RawArguments {
    var command: CommandSpec?
    var isHelpCommand = false
    var helpTopic: String?
    var global: [String: [String]] = [:]
    var options: [String: [String]] = [:]
    var positionals: [String] = []

    func flag(_ name: String) -> Bool { options[name] != nil }
    func value(_ name: String) -> String? { options[name]?.last }
  }

  static func scan(_ arguments: [String]) throws -> RawArguments {
    var raw = RawArguments()
    var index = 0
    var optionsEnded = false
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if !optionsEnded && argument == "--" {
        optionsEnded = true
      } else if !optionsEnded && argument.hasPrefix("--") {
        let body = argument.dropFirst(2)
        let name = String(body.prefix { $0 != "=" })
        let inline = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
        let (spec, isGlobal) = try lookUp(long: name, in: raw)
        try record(spec, isGlobal: isGlobal, inline: inline, spelled: "--" + name, &raw, arguments, &index)
      } else if !optionsEnded && argument.hasPrefix("-") && argument.count > 1 {
        let letter = argument[argument.index(after: argument.startIndex)]
        let rest = String(argument.dropFirst(2))
        let (spec, isGlobal) = try lookUp(short: letter, in: raw)
        if spec.valueName == nil && !rest.isEmpty {
          throw UsageError(
            "-\(letter) takes no value (combined short flags are not supported)", command: raw.command?.name)
        }
        try record(
          spec, isGlobal: isGlobal, inline: rest.isEmpty ? nil : rest, spelled: "-\(letter)", &raw, arguments, &index)
      } else if raw.command == nil && !raw.isHelpCommand {
        if argument == "help" {
          raw.isHelpCommand = true
        } else if let spec = CommandCatalog.command(named: argument) {
          raw.command = spec
        } else {
          throw UsageError("unknown command \"\(argument.prefix(80))\"; the commands are \(commandList)")
        }
      } else if raw.isHelpCommand && raw.helpTopic == nil {
        guard CommandCatalog.command(named: argument) != nil else {
          throw UsageError(
            "no help for \"\(argument.prefix(80))\": it is not a command; the commands are \(commandList)")
        }
        raw.helpTopic = argument
      } else {
        raw.positionals.append(argument)
      }
    }
    return raw
  }

  private static var commandList: String { CommandCatalog.commands.map(\.name).joined(separator: ", ") }

  private static func lookUp(long name: String, in raw: RawArguments) throws -> (OptionSpec, Bool) {
    if let spec = CommandCatalog.globalOptions.first(where: { $0.name == name }) { return (spec, true) }
    if let spec = raw.command?.option(named: name) { return (spec, false) }
    throw unknownOption("--" + name, raw)
  }

  private static func lookUp(short letter: Character, in raw: RawArguments) throws -> (OptionSpec, Bool) {
    if let spec = CommandCatalog.globalOptions.first(where: { $0.short == letter }) { return (spec, true) }
    if let spec = raw.command?.option(short: letter) { return (spec, false) }
    throw unknownOption("-\(letter)", raw)
  }

  private static func unknownOption(_ spelled: String, _ raw: RawArguments) -> UsageError {
    guard let command = raw.command else {
      let owners = CommandCatalog.commands.filter { spec in
        spec.options.contains { "--" + $0.name == spelled || $0.short.map { "-\($0)" } == spelled }
      }
      let hint = owners.isEmpty ? "" : "; it belongs after the command: xid \(owners[0].name) \(spelled)"
      return UsageError("unknown option \(spelled.prefix(80))\(hint)")
    }
    return UsageError("unknown option \(spelled.prefix(80)) for 'xid \(command.name)'", command: command.name)
  }

  private static func record(
    _ spec: OptionSpec, isGlobal: Bool, inline: String?, spelled: String, _ raw: inout RawArguments,
    _ arguments: [String], _ index: inout Int
  ) throws {
    let command = raw.command?.name
    var value = ""
    if let valueName = spec.valueName {
      if let inline {
        value = inline
      } else {
        guard index < arguments.count else {
          throw UsageError("\(spelled) needs a value (\(valueName))", command: command)
        }
        value = arguments[index]
        index += 1
      }
    } else if inline != nil {
      throw UsageError("\(spelled) takes no value", command: command)
    }
    let previous = isGlobal ? raw.global[spec.name] : raw.options[spec.name]
    if previous != nil && !spec.repeatable && !(isGlobal && spec.valueName == nil) {
      throw UsageError("--\(spec.name) is given more than once", command: command)
    }
    if isGlobal {
      raw.global[spec.name, default: []].append(value)
    } else {
      raw.options[spec.name, default: []].append(value)
    }
  }
}
