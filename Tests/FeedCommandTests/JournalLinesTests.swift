import Testing

@testable import FeedTerminal

/// `JournalLines`: stderr under systemd, each line with its sd-daemon(3) priority prefix.
@Suite("Journal lines: a priority for each stderr line")
struct JournalLinesTests {
    @Test func failuresAreErrorsWarningsWarningsAndVerboseLinesInformation() throws {
        let sink = BufferSink()
        let journal = JournalLines(sink: sink)
        try journal.write("feedcli: no feed named x\n")
        try journal.write("feedcli: ev: warning: keeps every event\n")
        try journal.writeInformation(Array("feedcli: GET http://h/ -> 200 in 3 ms\n".utf8))
        #expect(
            sink.text == "<3>feedcli: no feed named x\n<4>feedcli: ev: warning: keeps every event\n"
                + "<6>feedcli: GET http://h/ -> 200 in 3 ms\n")
    }

    @Test func aLineWrittenInPiecesGetsOnePrefixOnceItIsWhole() throws {
        let sink = BufferSink()
        let journal = JournalLines(sink: sink)
        try journal.write("feedcli: ev: warn")
        #expect(sink.text.isEmpty, "nothing until the line ends")
        try journal.write("ing: late\nfeedcli: two\nfeedcli: th")
        try journal.write("ree\n")
        #expect(sink.text == "<4>feedcli: ev: warning: late\n<3>feedcli: two\n<3>feedcli: three\n")
    }
}
