import Testing

@testable import FeedPostgres

/// How a large value is cut into the parts `PostgresStore` sends one statement each.
@Suite("A large value in parts")
struct LargeValuePartsTests {
    @Test func partsTileTheValueAndNeverSplitAScalar() {
        let text = String(repeating: "ab🎉é中", count: 1_000)
        for size in [4, 5, 7, 64, 1_000, 100_000] {
            let ranges = PostgresStore.partRanges(of: text, size: size)
            let parts = ranges.map { String(Substring(text.unicodeScalars[$0])) }
            #expect(parts.joined() == text, "size \(size): the parts make the value")
            #expect(parts.allSatisfy { !$0.isEmpty && $0.utf8.count <= size }, "size \(size): none empty or too long")
            #expect(
                ranges.allSatisfy { $0.lowerBound.samePosition(in: text.unicodeScalars) != nil },
                "size \(size): cut between scalars")
        }
        #expect(PostgresStore.partRanges(of: "", size: 8).isEmpty)
    }
}
