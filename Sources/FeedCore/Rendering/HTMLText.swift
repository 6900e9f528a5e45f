import FoundationEssentials
import Glibc

/// HTML in an entry's text, shown as text for a person: paragraphs and blocks separated by a
/// blank line, `<br>` as a line break, list items as bullets, links as numbered references
/// (`text [1]`, listed under the entry), entities decoded, scripts and styles dropped, every
/// other tag removed, runs of white space collapsed. A forgiving scan, not a parser: whatever
/// the markup, it ends in text.
package enum HTMLText {
    package struct Rendered: Equatable {
        var text: String
        var links: [String]
    }

    /// Whether `text` looks like HTML (a tag or an entity), so that plain text with a `<` is left
    /// alone.
    package static func looksLikeHTML(_ text: String) -> Bool {
        guard text.contains("<") || text.contains("&") else { return false }
        let lower = text.lowercased()
        return ["<p", "<br", "<a ", "</", "<li", "<div", "<img", "<em", "<strong", "<b>", "<i>", "<blockquote", "<h"]
            .contains { lower.contains($0) } || containsEntity(lower)
    }

    /// Whether `text` holds an entity: `&name;`, `&#123;` or `&#x1f;` (lowercase ASCII names).
    private static func containsEntity(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        while let ampersand = bytes[index...].firstIndex(of: UInt8(ascii: "&")) {
            var cursor = ampersand + 1
            let isNumeric = cursor < bytes.count && bytes[cursor] == UInt8(ascii: "#")
            if isNumeric { cursor += 1 }
            let isHex = isNumeric && cursor < bytes.count && bytes[cursor] == UInt8(ascii: "x")
            if isHex { cursor += 1 }
            let start = cursor
            while cursor < bytes.count {
                let byte = bytes[cursor]
                let isDigit = (0x30...0x39).contains(byte)
                let isLetter = (0x61...0x7A).contains(byte)
                let fits = isHex ? isDigit || (0x61...0x66).contains(byte) : isNumeric ? isDigit : isLetter
                guard fits else { break }
                cursor += 1
            }
            if cursor > start, cursor < bytes.count, bytes[cursor] == UInt8(ascii: ";") { return true }
            index = ampersand + 1
        }
        return false
    }

    package static func render(_ html: String) -> Rendered {
        var output = ""
        var links: [String] = []
        var openLinks: [String?] = []
        var pendingSpace = false
        var pendingBreak = 0  // newlines owed before the next text: 1 line break, 2 paragraph
        var skipping: String?  // inside <script> or <style>
        // A bullet with no text after it yet: a block opening here (`<li><p>`) is the item's
        // own first block, not a paragraph after the bullet.
        var afterBullet = false
        let scalars = Array(html.unicodeScalars)
        var index = 0

        func emit(_ text: String) {
            for scalar in text.unicodeScalars {
                if scalar.properties.isWhitespace && scalar != "\u{A0}" {
                    pendingSpace = true
                    continue
                }
                if !output.isEmpty {
                    if pendingBreak > 0 {
                        output += String(repeating: "\n", count: pendingBreak)
                    } else if pendingSpace {
                        output += " "
                    }
                }
                pendingBreak = 0
                pendingSpace = false
                afterBullet = false
                output.unicodeScalars.append(scalar)
            }
        }
        func block(_ lines: Int) {
            guard !afterBullet else { return }
            pendingBreak = max(pendingBreak, lines)
        }

        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "<", let close = scalars[index...].firstIndex(of: ">") {
                let inside = String(String.UnicodeScalarView(scalars[(index + 1)..<close]))
                index = close + 1
                let isClosing = inside.hasPrefix("/")
                let name = String(inside.drop { $0 == "/" }.prefix { $0.isLetter || $0.isNumber }).lowercased()
                if let skipped = skipping {
                    if isClosing, name == skipped { skipping = nil }
                    continue
                }
                switch name {
                case "script", "style":
                    if !isClosing, !inside.hasSuffix("/") { skipping = name }
                case "br":
                    block(1)
                case "p", "div", "blockquote", "pre", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "table", "figure",
                    "hr":
                    block(2)
                case "li", "tr":
                    if !isClosing {
                        block(1)
                        emit("•")
                        pendingSpace = true
                        afterBullet = true
                    }
                case "a":
                    if isClosing {
                        if let href = openLinks.popLast() ?? nil {
                            links.append(href)
                            emit(" [\(links.count)]")
                        }
                    } else {
                        // An in-page anchor (`#fn1`) means nothing in a terminal: its text stays, unlisted.
                        openLinks.append(
                            attribute("href", in: inside).map(decodeEntities).flatMap {
                                $0.isEmpty || $0.hasPrefix("#") ? nil : $0
                            })
                    }
                default:
                    break
                }
                continue
            }
            guard skipping == nil else {
                index += 1
                continue
            }
            // Text up to the next tag.
            let end = scalars[index...].firstIndex(of: "<") ?? scalars.count
            let stop = end == index ? index + 1 : end
            emit(decodeEntities(String(String.UnicodeScalarView(scalars[index..<stop]))))
            index = stop
        }
        return Rendered(text: output, links: links)
    }

    /// The value of attribute `name` in a tag's inside (`a href="…" title=…`).
    private static func attribute(_ name: String, in tag: String) -> String? {
        // An ASCII case-insensitive search (attribute names are ASCII), by bytes so that the
        // position found is one in `tag` itself.
        let needle = Array((name + "=").lowercased().utf8)
        let bytes = Array(tag.utf8)
        guard bytes.count >= needle.count,
            let offset = (0...(bytes.count - needle.count)).first(where: { start in
                needle.indices.allSatisfy { i in
                    let byte = bytes[start + i]
                    return (byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte) == needle[i]
                }
            })
        else { return nil }
        let rest = Substring(String(decoding: bytes[(offset + needle.count)...], as: UTF8.self))
        if let quote = rest.first, quote == "\"" || quote == "'" {
            return String(rest.dropFirst().prefix { $0 != quote })
        }
        return String(rest.prefix { !$0.isWhitespace && $0 != ">" })
    }

    private static let named: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}", "mdash": "—", "ndash": "–",
        "hellip": "…", "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”", "laquo": "«", "raquo": "»",
        "copy": "©", "reg": "®", "trade": "™", "middot": "·", "bull": "•", "deg": "°", "times": "×", "euro": "€",
        "eacute": "é", "egrave": "è", "agrave": "à", "uuml": "ü", "ouml": "ö", "auml": "ä", "szlig": "ß", "ccedil": "ç",
    ]

    /// `&amp;`, `&#8212;`, `&#x2014;` and the common named entities decoded; anything else kept.
    package static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            let tail = rest[rest.index(after: amp)...]
            guard let semicolon = tail.prefix(12).firstIndex(of: ";") else {
                result += "&"
                rest = tail
                continue
            }
            let name = String(tail[..<semicolon])
            var decoded: String?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                decoded = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map {
                    String(Character($0))
                }
            } else if name.hasPrefix("#") {
                decoded = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else {
                decoded = named[name.lowercased()]
            }
            if let decoded {
                result += decoded
                rest = tail[tail.index(after: semicolon)...]
            } else {
                result += "&"
                rest = tail
            }
        }
        return result + rest
    }
}

/// Word wrapping for a terminal: each line of `text` broken at spaces to at most `width`
/// characters (a longer word stands alone).
package enum TextWrapping {
    package static func wrap(_ text: String, width: Int) -> String {
        guard width > 10 else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.count > width else { return String(line) }
            var lines: [String] = []
            var current = ""
            for word in line.split(separator: " ", omittingEmptySubsequences: false) {
                if current.isEmpty {
                    current = String(word)
                } else if current.count + 1 + word.count <= width {
                    current += " " + word
                } else {
                    lines.append(current)
                    current = String(word)
                }
            }
            lines.append(current)
            return lines.joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
