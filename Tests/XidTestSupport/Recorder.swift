/// Collects values from concurrently running handlers.
public actor Recorder<Value: Sendable> {
  public private(set) var values: [Value] = []

  public init() {}

  public func record(_ value: Value) { values.append(value) }
}
