/// Collects values from concurrently running handlers.
actor Recorder<Value: Sendable> {
  private(set) var values: [Value] = []

  func record(_ value: Value) { values.append(value) }
}
