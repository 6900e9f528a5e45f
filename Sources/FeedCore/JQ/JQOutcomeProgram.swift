import FeedModel
import FoundationEssentials

/// The jq programs a worker runs for a page: each expression answered with the paths it names
/// (when they are simple: keys and whole indexes) or else its values or its error, several
/// expressions in one program.
///
/// Why one program for several expressions: jq 1.6 compiles its whole builtin library with every
/// program, which costs milliseconds, so a feed of eight expressions, each tried as `path(E)` and
/// then as `E`, would spend longer compiling than fetching. A page now costs two programs
/// (the page's and the items'), each compiled once per worker.
///
/// Each expression goes in parenthesised on lines of its own, so a comment in it ends there.
/// Before each one, a `{"feedcli-stage": N}` marker passes through `debug`, which the worker's
/// C side reads into the shared progress (`JQProgress`), so a crash still names its option.
package enum JQOutcomeProgram {
    /// Answers `f` with `{"p": paths}` (at most `$n + 1`), `{"v": values}` (at most `$m + 1`)
    /// or `{"e": error}`; one more than asked tells that there were more.
    package static let definition = """
        def _feedcli_outcome(f; $n; $m):
          (try {p: [limit($n + 1; path(f))]} catch {e: .}) as $r
          | if ($r | has("p")) and ($r.p | all(.[]; all(.[]; type == "string" or (type == "number" and . == floor))))
            then $r else (try {v: [limit($m + 1; f)]} catch {e: .}) end;

        """

    /// How many outputs an expression may give: as paths into the page, and as values jq built.
    package struct Limit: Equatable {
        var paths: Int
        var values: Int

        static let one = Limit(paths: 1, values: 1)
    }

    /// One program giving an array of outcomes: `expressions[i]` within `limits[i]`, after the
    /// stage marker `stages[i]`.
    package static func program(_ expressions: [String], limits: [Limit], stages: [JQProgress.Stage]) -> String {
        var text = definition + "["
        for (index, expression) in expressions.enumerated() {
            if index > 0 { text += ",\n" }
            let stage = JQProgress(stages[index]).encoded.0
            text +=
                "({\"feedcli-stage\": \(stage)} | debug | empty),\n_feedcli_outcome((\n\(expression)\n); \(limits[index].paths); \(limits[index].values))"
        }
        return text + "\n]"
    }

    /// The outcomes in the program's one output (compact JSON); nil when it is not one.
    package static func outcomes(_ text: String, limits: [Limit]) -> [JQOutcome]? {
        guard case .array(let elements)? = try? JSONParser.parse(text), elements.count == limits.count else {
            return nil
        }
        var outcomes: [JQOutcome] = []
        outcomes.reserveCapacity(elements.count)
        for (element, limit) in zip(elements, limits) {
            guard case .object(let object) = element else { return nil }
            if case .array(let paths)? = object["p"] {
                outcomes.append(
                    .paths(paths.prefix(limit.paths).map { RawJSON($0).text }, more: paths.count > limit.paths))
            } else if case .array(let values)? = object["v"] {
                outcomes.append(
                    .values(values.prefix(limit.values).map { RawJSON($0).text }, more: values.count > limit.values))
            } else if let error = object["e"] {
                outcomes.append(.failed(error.string ?? RawJSON(error).text))
            } else {
                return nil
            }
        }
        return outcomes
    }
}
