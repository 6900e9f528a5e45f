import FeedModel
import FoundationEssentials
import Glibc

/// `feeds export --opml`: the feeds as one OPML 2.0 document, each an `<outline>` with feedcli's
/// own attributes (`OPML.Attribute`, in its namespace) keeping its name, kind, token variable,
/// `--every` and expressions for `feeds import`. Only a `jsonfeed` feed is `type="rss"` with its
/// URL as `xmlUrl` (other readers read JSON Feed); other kinds are `type="feedcli"` with the URL
/// in `feedcli:feedUrl`, so no reader subscribes to what it cannot read (newsboat takes any `xmlUrl`). A token itself is never written, and a URL's password is
/// masked (`user:***@`): an export is a file people share.
public enum OPMLWriter {
    public static func document(_ records: [FeedRecord], created: Date) -> String {
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<opml version="2.0" xmlns:"# + OPML.prefix + #"=""# + OPML.namespace + #"">"#,
            "  <head>",
            "    <title>feedcli subscriptions</title>",
            "    <dateCreated>\(rfc822(created))</dateCreated>",
            "  </head>",
            "  <body>",
        ]
        for record in records {
            let registration = record.registration
            var attributes: [(String, String)] = [
                // Readers show `text` and `title`: the source's own title when known.
                ("type", registration.kind == .jsonfeed ? "rss" : OPML.prefix),
                ("text", record.title ?? registration.name),
                ("title", record.title ?? registration.name),
                // Other readers subscribe to any `xmlUrl`: a feed only feedcli reads keeps its URL
                // in feedcli's own attribute.
                (
                    registration.kind == .jsonfeed ? "xmlUrl" : OPML.Attribute.feedURL.qualifiedName,
                    Redaction.maskingSecrets(in: registration.url)
                ),
                (OPML.Attribute.name.qualifiedName, registration.name),
                (OPML.Attribute.kind.qualifiedName, record.kindName),
            ]
            if let tokenEnv = registration.tokenEnv {
                attributes.append((OPML.Attribute.tokenEnv.qualifiedName, tokenEnv))
            }
            if let every = record.every {
                attributes.append((OPML.Attribute.every.qualifiedName, EveryDuration.format(every)))
            }
            if record.keepIsChosen {
                attributes.append((OPML.Attribute.keep.qualifiedName, record.retention.keep.text))
                attributes.append((OPML.Attribute.remember.qualifiedName, record.retention.remember.text))
            }
            if let json = registration.expressions.json {
                attributes.append((OPML.Attribute.expressions.qualifiedName, json))
            }
            lines.append(
                "    <outline " + attributes.map { "\($0.0)=\"\(XMLText.escaped($0.1))\"" }.joined(separator: " ")
                    + "/>")
        }
        lines += ["  </body>", "</opml>"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// OPML's dates are RFC 822's: `Wed, 25 Nov 2026 01:55:14 GMT`.
    package static func rfc822(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(days[Int(parts.tm_wday) % 7]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon) % 12]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
