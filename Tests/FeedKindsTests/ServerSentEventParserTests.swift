import Testing

@testable import FeedKinds

/// The event-stream parser against the cases of the web-platform-tests (`eventsource/format-*`,
/// transcribed: each test's stream as its server sends it, and the events a browser must
/// dispatch), LaunchDarkly's sse-contract-tests (parsing, line ends, BOM), and the rules the
/// WHATWG standard states that those tests leave out. Every case is
/// also fed cut at every byte: a stream's events never depend on where its chunks end.
@Suite("Server-Sent Events: the WHATWG parser")
struct ServerSentEventParserTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var stream: [UInt8]
        var events: [ServerSentEvent]
        var lastEventID = ""
        var retry: Int? = nil
        var testDescription: String { name }
    }

    /// WPT's `message.php` answers its message, then "\n\n" (or nothing with `newline=none`),
    /// then "\n".
    static func wpt(_ message: String, newline: Bool = true) -> [UInt8] {
        Array((message + (newline ? "\n\n" : "") + "\n").utf8)
    }

    static let long = String(repeating: "x", count: 2 * 1024)

    static let cases: [Case] = [
        // format-bom.js: only the stream's first BOM is dropped; a later one makes a field named
        // "\u{FEFF}data", which is ignored.
        Case(
            name: "format-bom", stream: wpt("\u{FEFF}data:1\n\n\u{FEFF}data:2\n\ndata:3"),
            events: [.init(data: "1"), .init(data: "3")]),
        // format-comments.js: comments (with NUL, CR, long ones) between data lines, all three
        // line ends.
        Case(
            name: "format-comments",
            stream: wpt(
                "data:1\r:\0\n:\r\ndata:2\n:" + long + "\rdata:3\n:data:fail\r:" + long + "\ndata:4\n", newline: false),
            events: [.init(data: "1\n2\n3\n4")]),
        // format-data-before-final-empty-line.js: an event the stream ends before its empty
        // line is not dispatched, and its id is not the last event id.
        Case(
            name: "format-data-before-final-empty-line",
            stream: Array("retry:1000\ndata:test1\n\nid:test\ndata:test2".utf8) + [0x0A],
            events: [.init(data: "test1")], lastEventID: "", retry: 1000),
        // format-field-data.js: an empty data field is an empty line of data; a field name alone
        // is a field with an empty value.
        Case(
            name: "format-field-data", stream: wpt("data:\n\ndata\ndata\n\ndata:test"),
            events: [.init(data: ""), .init(data: "\n"), .init(data: "test")]),
        // format-field-event-empty.htm: an empty event type is "message".
        Case(name: "format-field-event-empty", stream: wpt("event: \ndata:data"), events: [.init(data: "data")]),
        // format-field-event.htm: a named event.
        Case(
            name: "format-field-event", stream: wpt("event:test\ndata:x\n\ndata:x"),
            events: [.init(type: "test", data: "x"), .init(data: "x")]),
        // format-field-id.htm and -2: an id is carried by later events until another resets it.
        Case(
            name: "format-field-id", stream: wpt("id: 1\ndata: a\n\nid:\ndata: b\n\ndata: c"),
            events: [.init(data: "a", lastEventID: "1"), .init(data: "b"), .init(data: "c")]),
        // format-field-id-null: an id holding NUL is ignored (the standard since 2020).
        Case(
            name: "format-field-id-null", stream: wpt("id: 7\ndata: a\n\nid: x\0y\ndata: b"),
            events: [.init(data: "a", lastEventID: "7"), .init(data: "b", lastEventID: "7")], lastEventID: "7"),
        // format-field-retry-bogus.htm: a retry that is not all digits is ignored.
        Case(
            name: "format-field-retry-bogus", stream: wpt("retry:2000\nretry:1000x\ndata:x"),
            events: [.init(data: "x")], retry: 2000),
        // format-field-retry.htm: digits only.
        Case(name: "format-field-retry", stream: wpt("retry:03000\ndata:x"), events: [.init(data: "x")], retry: 3000),
        // format-utf-8: the stream is UTF-8; a bad byte is U+FFFD.
        Case(
            name: "format-utf-8",
            stream: wpt("data:ok…") + Array("data:\u{FF}\n\n".utf8.prefix(5)) + [0xFF, 0x0A, 0x0A],
            events: [.init(data: "ok…"), .init(data: "\u{FFFD}")]),
        // The standard, beyond WPT's cases: one space after the colon is dropped, not two; an id
        // alone (no data) dispatches nothing but sets the last event id; CRLF; an empty id
        // resets it.
        Case(name: "one space dropped", stream: Array("data:  two\r\n\r\n".utf8), events: [.init(data: " two")]),
        Case(name: "id without data", stream: Array("id: 9\n\n".utf8), events: [], lastEventID: "9"),
        Case(
            name: "empty id resets", stream: Array("id: 9\ndata: a\n\nid\ndata: b\n\n".utf8),
            events: [.init(data: "a", lastEventID: "9"), .init(data: "b")], lastEventID: ""),
        Case(name: "unknown field", stream: Array("foo: bar\ndata: a\n\n".utf8), events: [.init(data: "a")]),
    ]

    /// LaunchDarkly's sse-contract-tests (`ssetests/tests_basic_parsing.go`, `tests_linefeeds.go`,
    /// `tests_bom.go`), transcribed: each test's stream and the events it requires.
    static let launchDarkly: [Case] = {
        var cases: [Case] = [
            Case(name: "one-line message", stream: Array("data: Hello\n\n".utf8), events: [.init(data: "Hello")]),
            Case(
                name: "two one-line messages", stream: Array("data: Hello\n\ndata: World\n\n".utf8),
                events: [.init(data: "Hello"), .init(data: "World")]),
            Case(
                name: "one two-line message", stream: Array("data: Hello\ndata:World\n\n".utf8),
                events: [.init(data: "Hello\nWorld")]),
            Case(name: "empty data", stream: Array("data:\n\n".utf8), events: [.init(data: "")]),
            Case(
                name: "event with specific type", stream: Array("event: greeting\ndata: Hello\n\n".utf8),
                events: [.init(type: "greeting", data: "Hello")]),
            Case(
                name: "event with ID", stream: Array("id: abc\ndata: Hello\n\n".utf8),
                events: [.init(data: "Hello", lastEventID: "abc")],
                lastEventID: "abc"),
            Case(
                name: "event with type and ID", stream: Array("event: greeting\nid: abc\ndata: Hello\n\n".utf8),
                events: [.init(type: "greeting", data: "Hello", lastEventID: "abc")], lastEventID: "abc"),
            Case(
                name: "ID field is ignored if it contains a null", stream: Array("id: a\0bc\ndata: Hello\n\n".utf8),
                events: [.init(data: "Hello")]),
            Case(
                name: "last ID persists if not overridden",
                stream: Array("id: abc\ndata: first\n\ndata: second\n\n".utf8),
                events: [.init(data: "first", lastEventID: "abc"), .init(data: "second", lastEventID: "abc")],
                lastEventID: "abc"),
            Case(
                name: "last ID can be overridden by an empty value",
                stream: Array("id: abc\ndata: first\n\nid: \ndata: second\n\n".utf8),
                events: [.init(data: "first", lastEventID: "abc"), .init(data: "second")]),
            Case(
                name: "fields in reverse order", stream: Array("data: Hello\nid: abc\nevent: greeting\n\n".utf8),
                events: [.init(type: "greeting", data: "Hello", lastEventID: "abc")], lastEventID: "abc"),
            Case(
                name: "unknown field is ignored", stream: Array("event: greeting\ncolor: blue\ndata: Hello\n\n".utf8),
                events: [.init(type: "greeting", data: "Hello")]),
            Case(
                name: "fields without leading space", stream: Array("event:greeting\ndata:Hello\n\n".utf8),
                events: [.init(type: "greeting", data: "Hello")]),
            Case(
                name: "fields with extra leading space", stream: Array("event:  greeting\ndata:  Hello\n\n".utf8),
                events: [.init(type: " greeting", data: " Hello")]),
            Case(
                name: "field with no colon", stream: Array("data\n\ndata\ndata\n\n".utf8),
                events: [.init(data: ""), .init(data: "\n")]),
            Case(name: "multi-byte characters", stream: Array("data: €豆腐\n\n".utf8), events: [.init(data: "€豆腐")]),
            Case(
                name: "many messages in rapid succession",
                stream: Array((0..<100).map { "data: message \($0)\n\n" }.joined().utf8),
                events: (0..<100).map { .init(data: "message \($0)") }),
            Case(
                name: "CRLF where CR is the end of a chunk",
                stream: Array("data: Hello\r\ndata: World\r\n\r\ndata: OK\r\n\r\n".utf8),
                events: [.init(data: "Hello\nWorld"), .init(data: "OK")]),
            Case(
                name: "BOM at start of stream is stripped", stream: Array("\u{FEFF}data: Hello\n\n".utf8),
                events: [.init(data: "Hello")]),
            Case(
                name: "BOM only stripped at stream start",
                stream: Array("data: First\n\ndata: \u{FEFF}Second\n\n".utf8),
                events: [.init(data: "First"), .init(data: "\u{FEFF}Second")]),
            Case(
                name: "only the first BOM is stripped", stream: Array("\u{FEFF}data: \u{FEFF}Hello\n\n".utf8),
                events: [.init(data: "\u{FEFF}Hello")]),
            Case(
                name: "BOM with a comment at start", stream: Array("\u{FEFF}:comment\ndata: Hello\n\n".utf8),
                events: [.init(data: "Hello")]),
            Case(
                name: "BOM does not affect empty data", stream: Array("\u{FEFF}data:\n\n".utf8),
                events: [.init(data: "")]),
        ]
        // tests_linefeeds.go: each shape with LF, CRLF and CR as the line end.
        for (name, end) in [("LF", "\n"), ("CRLF", "\r\n"), ("CR", "\r")] {
            let shapes: [(String, String, [ServerSentEvent])] = [
                ("one-line event", "data: event 1" + end + end, [.init(data: "event 1")]),
                (
                    "one-line event + two-line event",
                    "data: event 1" + end + end + "data: event 2 line 1" + end + "data: event 2 line 2" + end + end,
                    [.init(data: "event 1"), .init(data: "event 2 line 1\nevent 2 line 2")]
                ),
                (
                    "3-line event with empty line at beginning",
                    "data:" + end + "data: line2" + end + "data: line3" + end + end,
                    [.init(data: "\nline2\nline3")]
                ),
                (
                    "3-line event with empty line in middle",
                    "data: line1" + end + "data:" + end + "data: line3" + end + end,
                    [.init(data: "line1\n\nline3")]
                ),
                (
                    "ignores 1 extra empty line", "data: event 1" + end + end + end + "data: event 2" + end + end,
                    [.init(data: "event 1"), .init(data: "event 2")]
                ),
                (
                    "ignores 2 extra empty lines",
                    "data: event 1" + end + end + end + end + "data: event 2" + end + end,
                    [.init(data: "event 1"), .init(data: "event 2")]
                ),
            ]
            cases += shapes.map { Case(name: "\(name) separator, \($0.0)", stream: Array($0.1.utf8), events: $0.2) }
        }
        return cases
    }()

    @Test(arguments: launchDarkly)
    func dispatchesWhatLaunchDarklysContractTestsRequire(_ test: Case) {
        var parser = ServerSentEventParser()
        #expect(parser.parse(test.stream) == test.events.map { .event($0) })
        #expect(parser.lastEventID == test.lastEventID)
        for size in [1, 2] {  // as the contract tests send them: in chunks of one and two bytes
            var chunked = ServerSentEventParser()
            let outputs = stride(from: 0, to: test.stream.count, by: size).flatMap { start in
                chunked.parse(test.stream[start..<min(start + size, test.stream.count)])
            }
            #expect(outputs == test.events.map { .event($0) }, "\(size)-byte chunks")
        }
    }

    @Test(arguments: cases)
    func dispatchesWhatTheStandardSays(_ test: Case) {
        var parser = ServerSentEventParser()
        let outputs = parser.parse(test.stream)
        #expect(outputs == test.events.map { .event($0) })
        #expect(parser.lastEventID == test.lastEventID)
        #expect(parser.retry == test.retry)
    }

    @Test(arguments: cases)
    func anyCutGivesTheSameEvents(_ test: Case) {
        var whole = ServerSentEventParser()
        let expected = whole.parse(test.stream)
        for cut in 0...test.stream.count {
            var parser = ServerSentEventParser()
            let outputs = parser.parse(test.stream[..<cut]) + parser.parse(test.stream[cut...])
            #expect(outputs == expected, "cut at byte \(cut)")
            #expect(parser.lastEventID == whole.lastEventID && parser.retry == whole.retry)
        }
        var bytewise = ServerSentEventParser()
        #expect(test.stream.flatMap { bytewise.parse([$0]) } == expected, "one byte at a time")
    }

    @Test func anEventLargerThanTheLimitIsDroppedAndSaidSo() {
        var parser = ServerSentEventParser(maxEventSize: 16)
        let outputs = parser.parse(Array("data: 0123456789\ndata: 0123456789\n\ndata: small\n\n".utf8))
        #expect(outputs == [.oversized, .event(.init(data: "small"))])
        var longLine = ServerSentEventParser(maxEventSize: 16)
        #expect(
            longLine.parse(Array(("data: " + String(repeating: "y", count: 100) + "\n\ndata: ok\n\n").utf8))
                == [.oversized, .event(.init(data: "ok"))])
    }

    /// Lines are taken a run of bytes at a time: the limit holds to the byte wherever a chunk
    /// ends, and a limit of any size is no trap.
    @Test func aLineAtTheLimitIsKeptAndOneByteOverIsDroppedWhereverItIsCut() {
        let atLimit = Array("data: 0123456789\n\n".utf8)  // a line of 16 bytes
        let overLimit = Array("data: 01234567890\n\ndata: ok\n\n".utf8)
        for cut in 0...overLimit.count {
            var parser = ServerSentEventParser(maxEventSize: 16)
            let outputs = parser.parse(overLimit[..<cut]) + parser.parse(overLimit[cut...])
            #expect(outputs == [.oversized, .event(.init(data: "ok"))], "cut at byte \(cut)")
        }
        for cut in 0...atLimit.count {
            var parser = ServerSentEventParser(maxEventSize: 16)
            let outputs = parser.parse(atLimit[..<cut]) + parser.parse(atLimit[cut...])
            #expect(outputs == [.event(.init(data: "0123456789"))], "cut at byte \(cut)")
        }
        var unlimited = ServerSentEventParser(maxEventSize: .max)
        #expect(unlimited.parse(atLimit) == [.event(.init(data: "0123456789"))])
    }

    @Test func aRetryBeyondAnyNumberIsTheLongestWaitNotATrap() {
        var parser = ServerSentEventParser()
        _ = parser.parse(Array("retry: 99999999999999999999999999\n\n".utf8))
        #expect(parser.retry == Int.max)
    }

    @Test func theLastEventIDItStartsFromIsKeptUntilAnotherComes() {
        var parser = ServerSentEventParser(lastEventID: "41")
        #expect(parser.parse(Array("data: a\n\n".utf8)) == [.event(.init(data: "a", lastEventID: "41"))])
        _ = parser.parse(Array("id: 42\ndata: b\n\n".utf8))
        #expect(parser.lastEventID == "42")
    }
}

/// JSON lines as a stream's reader cuts them.
@Suite("JSON lines")
struct JSONLineParserTests {
    @Test func linesEndAtLFWithCRDroppedAndBlankLinesSkipped() {
        var parser = JSONLineParser()
        let stream = Array("{\"id\":1}\r\n\n  \n{\"id\":2}\n{\"id\":3}".utf8)
        for cut in 0...stream.count {
            var cutParser = JSONLineParser()
            #expect(
                cutParser.parse(stream[..<cut]) + cutParser.parse(stream[cut...])
                    == [.line(Array("{\"id\":1}".utf8)), .line(Array("{\"id\":2}".utf8))], "cut at \(cut)")
        }
        #expect(
            parser.parse(stream).count == 2, "the last line, without its LF, waits (and is dropped if the stream ends)")
    }

    @Test func aLineLongerThanTheLimitIsDroppedAndSaidSo() {
        var parser = JSONLineParser(maxLineSize: 8)
        #expect(
            parser.parse(Array("{\"id\":\"0123456789\"}\n{\"id\":1}\n".utf8)) == [
                .oversized, .line(Array("{\"id\":1}".utf8)),
            ])
    }
}
