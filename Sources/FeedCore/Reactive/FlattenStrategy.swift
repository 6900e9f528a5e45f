import FoundationEssentials

/// How `flatMap` combines the inner observables it creates.
public enum FlattenStrategy: Sendable, Equatable {
    /// One inner at a time, in the order of the outer elements; later ones wait their turn.
    /// Nothing interleaves. The reactor processes actions this way.
    case concat
    /// Up to `maxConcurrent` inners at once; further ones wait in order. Elements are passed on as
    /// they arrive, so they may interleave across inners.
    case merge(maxConcurrent: Int)
}
