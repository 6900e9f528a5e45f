import FeedKinds
import FeedModel
import FeedStoreContract
import FoundationEssentials

extension FeedFailure {
    /// Wraps any error so that nothing escapes as an untyped crash: a fetch's errors as the
    /// fetch layer reads them (`init?(fetching:)`), a store's as it gave them (each engine maps
    /// its own errors to `FeedFailure`), anything else as a store or system error that says what
    /// it is.
    public static func wrap(_ error: any Error) -> FeedFailure {
        FeedFailure(fetching: error) ?? (error as? FeedFailure)
            ?? .storeAccess("the state store: \(Excerpt.of("\(error)", limit: 200))")
    }
}
