import FeedTesting
import Foundation
import Testing

/// The man page has what readers of man pages look for: EXIT STATUS with
/// every code, ENVIRONMENT, FEED KINDS, FILES and EXAMPLES (scripts/check-manual.sh keeps it
/// generated), and a cron line that works as the package installs feedcli.
@Suite("The man page", .timeLimit(.minutes(1)))
struct ManualTests {
    @Test func itHasTheSectionsReadersLookFor() throws {
        let page = try String(
            contentsOf: Fixtures.root.deletingLastPathComponent().appendingPathComponent("docs/feedcli.1"),
            encoding: .utf8)
        for section in [#".Sh "EXIT STATUS""#, ".Sh ENVIRONMENT", ".Sh FEED KINDS", ".Sh FILES", ".Sh EXAMPLES"] {
            #expect(page.contains(section + "\n"), "\(section)")
        }
        for code in ["0", "1", "64", "65", "66", "69", "73", "74", "75", "76", "77", "78", "130"] {
            #expect(page.contains("\n.It \(code)\n"), "exit status \(code)")
        }
        for variable in ["FEEDCLI_STATE", "XDG_STATE_HOME", "FEEDCLI_TOKEN", "BROWSER", "PAGER"] {
            #expect(page.contains(".It Ev \(variable)\n"), "\(variable)")
        }
        #expect(!page.contains(".Ex -std"), "the generic exit status line is replaced")
        for kind in ["indexed", "graph", "json", "sse", "jetstream"] {
            #expect(page.contains(".It Cm \(kind)"), "the kind \(kind)")
        }
        let cron = page.split(separator: "\n").filter { $0.hasPrefix("*/5 * * * * ") }
        #expect(
            !cron.isEmpty
                && cron.allSatisfy { $0.contains(" /usr/bin/feedcli ") })
        #expect(cron.allSatisfy { $0.contains(" --state ") }, "cron's bare environment needs the store's path: \(cron)")
    }
}
