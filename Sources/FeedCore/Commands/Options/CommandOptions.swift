/// The option groups a command's context is made of (`Invocation.context(_:)`): where the store
/// is, always; the data format and how to fetch, for the commands that take them (nil: plain
/// text, and the default fetch options of a command that does not fetch).
public struct CommandOptions {
    public var store: StoreOptions
    public var output: OutputOptions?
    public var fetching: FetchingOptions?
    /// Whether the command opens the store at `store.state` (every command but `store copy`,
    /// whose stores are its arguments): a database's connection is then begun with the context.
    public var opensStateStore: Bool

    public init(
        store: StoreOptions, output: OutputOptions? = nil, fetching: FetchingOptions? = nil,
        opensStateStore: Bool = true
    ) {
        self.store = store
        self.output = output
        self.fetching = fetching
        self.opensStateStore = opensStateStore
    }
}
