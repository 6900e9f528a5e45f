import CustomDump
import Foundation
import Testing

@testable import FeedModel

/// `FeedRecord` keeps its fields out of line and shares them between copies until one changes
/// (a quiet feed's sync copies records often): it must still behave as the plain struct it was.
@Suite("Feed record")
struct FeedRecordTests {
    private let record = FeedRecord(
        registration: FeedRegistration(name: "a", url: "https://example.com/a", kind: .graph),
        nextIndex: 3, validators: Validators(etag: "\"1\"", lastModified: nil), total: 2, unread: 1)

    @Test func aChangedCopyLeavesTheOriginalAsItWas() {
        var copy = record
        #expect(copy == record)
        copy.lastError = "boom"
        copy.registration.expressions.title = ".t"
        copy.unread += 1
        #expect(record.lastError == nil && record.registration.expressions.title == nil && record.unread == 1)
        #expect(copy.lastError == "boom" && copy.registration.expressions.title == ".t" && copy.unread == 2)
        #expect(copy != record)
        copy.lastError = nil
        copy.registration.expressions.title = nil
        copy.unread = 1
        #expect(copy == record, "equal by their fields, not by their storage")
    }

    @Test func copiesChangedOnTwoThreadsKeepTheirOwnChanges() async {
        let original = record
        let totals = await withTaskGroup(of: Int.self) { group in
            for n in 1...8 {
                group.addTask {
                    var copy = original
                    for _ in 0..<1_000 { copy.total += n }
                    return copy.total
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }.sorted()
        }
        #expect(totals == (1...8).map { 2 + 1_000 * $0 })
        #expect(original.total == 2)
    }

    @Test func itDumpsAsItsFields() {
        var dumped = ""
        customDump(record, to: &dumped)
        #expect(dumped.contains("nextIndex: 3") && dumped.contains("unread: 1") && !dumped.contains("storage"))
    }
}
