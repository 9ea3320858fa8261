/// One option a command accepts: `--name`, perhaps a one-letter `-n`, and perhaps a value.
package struct OptionSpec: Sendable, Hashable {
  /// The long name, without the leading `--`.
  package let name: String
  /// The one-letter form, used as `-X VALUE` or `-XVALUE`.
  package let short: Character?
  /// What the value is called in help (`URL`, `NAME`), or `nil` for a flag that takes none.
  package let valueName: String?
  /// Whether the option may be given several times (`-H` for several headers).
  package let repeatable: Bool
  /// One line of help.
  package let summary: String

  /// Describes an option.
  package init(
    _ name: String, short: Character? = nil, value: String? = nil, repeatable: Bool = false, _ summary: String
  ) {
    self.name = name
    self.short = short
    self.valueName = value
    self.repeatable = repeatable
    self.summary = summary
  }

  /// `-X, --request METHOD` as help shows it.
  var synopsis: String {
    let long = "--" + name + (valueName.map { " " + $0 } ?? "")
    return short.map { "-\($0), " + long } ?? "    " + long
  }
}

/// A command of the tool: its name, what it takes, and its help.
package struct CommandSpec: Sendable {
  /// The command's name, as typed after `xid`.
  package let name: String
  /// One line for the list of commands.
  package let summary: String
  /// The positional arguments, by their help names (`URL`); all required.
  package let positionals: [String]
  /// The options besides the global ones.
  package let options: [OptionSpec]
  /// Paragraphs of help after the options.
  package let discussion: String

  /// Describes a command.
  package init(
    name: String, summary: String, positionals: [String] = [], options: [OptionSpec] = [], discussion: String
  ) {
    self.name = name
    self.summary = summary
    self.positionals = positionals
    self.options = options
    self.discussion = discussion
  }

  /// The option named `name` (long name), or with the short letter `short`.
  func option(named name: String) -> OptionSpec? { options.first { $0.name == name } }
  func option(short: Character) -> OptionSpec? { options.first { $0.short == short } }
}
