import FeedKinds
import FeedModel
import FeedStore
import FoundationEssentials

extension FeedFailure {
    /// Wraps any error so that nothing escapes as an untyped crash: a fetch's errors as the
    /// fetch layer reads them (`init?(fetching:)`), anything else as a store or system error that
    /// says what it is.
    public static func wrap(_ error: any Error) -> FeedFailure {
        FeedFailure(fetching: error) ?? StoreFile.failure(error, path: "the state store")
    }
}
