/// The option groups a command's context is made of (`Invocation.context(_:)`): where the store
/// is, always; the data format and how to fetch, for the commands that take them (nil: plain
/// text, and the default fetch options of a command that does not fetch).
public struct CommandOptions {
    public var store: StoreOptions
    public var output: OutputOptions?
    public var fetching: FetchingOptions?

    public init(store: StoreOptions, output: OutputOptions? = nil, fetching: FetchingOptions? = nil) {
        self.store = store
        self.output = output
        self.fetching = fetching
    }
}
