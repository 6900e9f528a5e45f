import FeedHTTP
import FeedJQ
import FeedModel
import FoundationEssentials
import Glibc

/// The `json` kind (and every preset): any JSON response, read by the feed's jq expressions (`FeedExpressions`),
/// run by libjq in a sandboxed worker process (`JQ`) within the run's `--timeout` and
/// `--jq-memory`.
///
/// Exactness: jq 1.6 holds numbers as doubles, so an id read through jq's values could be
/// rounded. The worker therefore answers each expression with the paths it names when it names
/// paths, and the values are read at those paths from feedcli's own parse of the response
/// (numbers as sent, `source` as the server's members); only an expression that is not a path
/// (`"\(.a)-\(.b)"`) is read from jq's output. Two different items given one id by such an
/// expression are never merged: the second is a skipped item.
///
/// One page is one request to the worker: the page, `--items`, every field expression (run on
/// each item that is an object) and the next-page expression go together, and the outcomes
/// come back together.
package struct ExpressionFeed: PageFormat {
    /// The registered URL, to which a cursor or page number is added.
    package let feedURL: String
    package let expressions: FeedExpressions
    package let limits: JQ.Limits
    /// The preset and its kind's name, for a preset feed: a failure says what it reads.
    package var preset: (kind: String, preset: FeedPreset)? = nil

    /// Whether `--cursor` runs on the newest item read rather than on the response: for a
    /// stream's batch (an NDJSON feed resumes from its newest line, `--cursor .seq`), where the
    /// batch stands in for a page. An expression written for the whole batch (`.[-1].seq`, the
    /// form documented before) is run on it when it fails on the item.
    var cursorRunsOnNewestItem = false

    /// The most items one response may give; a runaway `--items` stops here and fails.
    package static let itemLimit = 1_000_000

    /// The most JSON values a page may hold. jq holds a page whole, at about 500 bytes a value
    /// for small objects, so this keeps a worker's memory near 110 MiB (the contract's bound for
    /// a run is 160); real APIs' pages hold a few tens of thousands.
    package static let valueLimit = 200_000

    /// An item field set by an expression: its option, the expression, and where it goes (nil
    /// for the id, which has rules of its own).
    package typealias Field = (option: String, expression: String, field: WritableKeyPath<FeedItem, String?>?)

    /// The item fields set by expressions, in the order they are sent to the worker.
    private var fields: [Field] {
        var fields: [Field] = []
        if let id = expressions.id { fields.append(("--id", id, nil)) }
        for (option, expression, path) in [
            ("--title", expressions.title, \FeedItem.title), ("--text", expressions.text, \FeedItem.text),
            ("--author", expressions.author, \FeedItem.author), ("--url", expressions.url, \FeedItem.url),
            ("--published", expressions.published, \FeedItem.published),
        ] {
            if let expression { fields.append((option, expression, path)) }
        }
        return fields
    }

    /// The expression run on the page for the next page, with its option.
    private var pageExpression: (option: String, expression: String)? {
        switch expressions.paging {
        case .nextURL(let expression)?: ("--next-url", expression)
        case .cursor(let expression, _)? where cursorRunsOnNewestItem:
            ("--cursor", ". as $batch | try (.[-1] | (\(expression))) catch ($batch | (\(expression)))")
        case .cursor(let expression, _)?: ("--cursor", expression)
        default: nil
        }
    }

    /// A stream's batch of items, read as a page that held them in this order; the cursor is
    /// the newest item's.
    package func page(ofItems items: [[UInt8]], url: String) throws(FeedFailure) -> FeedPage {
        var batch = self
        batch.cursorRunsOnNewestItem = true
        var body: [UInt8] = [UInt8(ascii: "[")]
        for (index, item) in items.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += item
        }
        body.append(UInt8(ascii: "]"))
        return try batch.page(from: HTTPResponse(status: 200, body: Data(body), effectiveURL: url))
    }

    package func page(from response: HTTPResponse) throws(FeedFailure) -> FeedPage {
        do {
            return try mappedPage(from: response)
        } catch .badData(let message) where preset != nil {
            // A preset's expressions fail when the URL is not the API it reads (Discourse's
            // `/posts.json` for `/latest.json`): say which it reads and where that is documented.
            guard let preset else { throw .badData(message) }
            throw .badData(
                message + "; --kind \(preset.kind) reads \(preset.preset.describedAs) (\(preset.preset.documentation))")
        }
    }

    private func mappedPage(from response: HTTPResponse) throws(FeedFailure) -> FeedPage {
        let url = response.effectiveURL
        guard JSONParser.valueCountBound(of: response.body) <= Self.valueLimit else {
            throw .badData(
                "page \(Redaction.maskingSecrets(in: url)) holds more than \(Self.valueLimit) JSON values, more than a "
                    + "json feed reads (jq holds a page whole): ask the API for smaller pages (a limit or per_page "
                    + "parameter), or, for a JSON array of objects with an `id`, use --kind linked")
        }
        let document = try FeedDocument.parse(response, what: "page \(url)")
        let fields = self.fields
        let pageExpression = self.pageExpression
        let request = JQMapRequest(
            page: LoneSurrogates.replaced(in: document.source.text), items: expressions.items ?? ".[]",
            itemLimit: Self.itemLimit,
            builtItemLimit: Self.valueLimit, fields: fields.map(\.expression),
            pageExpressions: pageExpression.map { [$0.expression] } ?? [])
        let outcomes: (items: JQOutcome, fields: [[JQOutcome]], page: [JQOutcome])
        do {
            outcomes = try JQ.map(request, limits: limits)
        } catch {
            let option: String
            switch error.progress?.stage {
            case .field(let index)? where fields.indices.contains(index):
                option = "\(fields[index].option) (item \((error.progress?.item ?? 0) + 1))"
            case .pageExpression?: option = pageExpression?.option ?? "--items"
            case .items?, .reading?: option = "--items"
            default: option = "the jq expressions"
            }
            throw JQFailure.of(error.error, option: option, page: url)
        }
        var mapping = ExpressionMapping(fields: fields, base: url, builtLimit: limits.output)
        return try mapping.page(
            document.value, outcomes: outcomes, response: response, feedURL: feedURL,
            paging: expressions.paging, pageOption: pageExpression?.option)
    }
}
