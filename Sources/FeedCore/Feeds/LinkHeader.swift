import FeedHTTP
import FeedModel
import FoundationEssentials
import Glibc

/// RFC 8288 `Link` header values: `<url>; rel="next"; title="x", <url2>; rel="prev first"`.
/// Several links per header (and several headers), quoted parameters that may hold commas and
/// semicolons, `rel` with several space-separated values, compared without case.
public enum LinkHeader {
    public struct Link: Sendable, Equatable {
        public var target: String
        public var relations: [String]
        public var parameters: [String: String]
    }

    public static func parse(_ value: String) -> [Link] {
        var links: [Link] = []
        var scalars = Substring(value)
        while let open = scalars.firstIndex(of: "<") {
            scalars = scalars[scalars.index(after: open)...]
            guard let close = scalars.firstIndex(of: ">") else { break }
            let target = String(scalars[..<close]).trimmingWhitespace()
            scalars = scalars[scalars.index(after: close)...]
            var parameters: [String: String] = [:]
            // Parameters run to the next comma outside quotes.
            while true {
                scalars = scalars.drop(while: { $0 == " " || $0 == "\t" })
                guard scalars.first == ";" else { break }
                scalars = scalars.dropFirst().drop(while: { $0 == " " || $0 == "\t" })
                let name = scalars.prefix(while: { $0 != "=" && $0 != ";" && $0 != "," })
                scalars = scalars[name.endIndex...]
                var parameterValue = ""
                if scalars.first == "=" {
                    scalars = scalars.dropFirst().drop(while: { $0 == " " })
                    if scalars.first == "\"" {
                        scalars = scalars.dropFirst()
                        var escaped = false
                        var index = scalars.startIndex
                        while index < scalars.endIndex {
                            let character = scalars[index]
                            if escaped {
                                parameterValue.append(character)
                                escaped = false
                            } else if character == "\\" {
                                escaped = true
                            } else if character == "\"" {
                                break
                            } else {
                                parameterValue.append(character)
                            }
                            index = scalars.index(after: index)
                        }
                        scalars = index < scalars.endIndex ? scalars[scalars.index(after: index)...] : scalars[index...]
                    } else {
                        let token = scalars.prefix(while: { $0 != ";" && $0 != "," })
                        parameterValue = String(token).trimmingWhitespace()
                        scalars = scalars[token.endIndex...]
                    }
                }
                let key = name.trimmingWhitespace().lowercased()
                if !key.isEmpty, parameters[key] == nil { parameters[key] = parameterValue }
            }
            let relations = (parameters["rel"] ?? "").lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" })
                .map(String.init)
            links.append(Link(target: target, relations: relations, parameters: parameters))
            scalars = scalars.drop(while: { $0 != "," && $0 != "<" })
        }
        return links
    }

    /// The `rel="next"` target of `headers`' Link fields, resolved against `base`.
    public static func next(in headers: HTTPHeaders, base: String) -> String? {
        let links = headers.values(for: "Link").flatMap(parse)
        guard let target = links.first(where: { $0.relations.contains("next") })?.target else { return nil }
        return URLReference.resolve(target, against: base)
    }

}
