import FoundationEssentials

/// The parts of a JSON value a reader uses. `JSONParser` builds those and checks the rest
/// without building it, so a reader that needs a handful of an item's fields never pays for the
/// million values a hostile item may hold beside them: what a page costs stays its bytes.
public indirect enum JSONProjection: Sendable, Equatable {
    /// The whole value.
    case whole
    /// Of an object, only these members, each read by its own projection; of an array, only its
    /// first element, read by `first` (no element when nil). A string, number, boolean or null
    /// is always whole.
    case parts([String: JSONProjection], first: JSONProjection? = nil)

    /// Only what kind of value it is: an object or an array reads as an empty one.
    public static let kindOnly = JSONProjection.parts([:])

    /// Of an object, these members whole.
    public static func members(_ names: [String]) -> JSONProjection {
        .parts(Dictionary(names.map { ($0, .whole) }, uniquingKeysWith: { first, _ in first }))
    }

    /// Everything either projection keeps.
    public func union(_ other: JSONProjection) -> JSONProjection {
        switch (self, other) {
        case (.whole, _), (_, .whole):
            return .whole
        case (.parts(let members, let first), .parts(let otherMembers, let otherFirst)):
            let joined = members.merging(otherMembers) { $0.union($1) }
            switch (first, otherFirst) {
            case (let first?, let otherFirst?): return .parts(joined, first: first.union(otherFirst))
            default: return .parts(joined, first: first ?? otherFirst)
            }
        }
    }
}
