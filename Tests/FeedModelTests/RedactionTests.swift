import FeedModel
import Testing

/// A PostgreSQL URL's password is masked as libpq reads it: its userinfo runs to the first `@`
/// before any `/`, whatever it holds. A password with `?`, `#` or a space was shown in clear
/// (the masking ended the authority there, as for an http URL).
@Suite("Secrets in URLs")
struct RedactionTests {
    @Test(arguments: ["ab?cd#ef gh", "p:w", "a b", "x#y", "q?r=s", "semi;colon", "100%25", "p%40ss", "tab\tin", "日本"])
    func aPostgreSQLPasswordIsMaskedWhateverItHolds(password: String) {
        for scheme in ["postgresql", "postgres", "PostgreSQL"] {
            let url = "\(scheme)://r2:\(password)@127.0.0.1:5432/feedcli?sslmode=disable"
            let shown = Redaction.maskingSecrets(in: "no store at \(url): refused")
            #expect(
                shown == "no store at \(scheme)://r2:***@127.0.0.1:5432/feedcli?sslmode=disable: refused", "\(shown)")
        }
    }

    /// A scheme's name is its whole run of letters before `://`: `xpostgresql` or `épostgresql`
    /// is not PostgreSQL's (its authority ends at `?` as an http URL's does), and the name is
    /// read back from the `://` to the first character that is not a letter.
    @Test func aSchemeIsItsWholeRunOfLetters() {
        for scheme in ["xpostgresql", "épostgresql", "日postgres"] {
            let url = "\(scheme)://u:p?x@h/db"
            #expect(Redaction.maskingSecrets(in: url) == url, "not PostgreSQL's: the authority ends at ?")
        }
        #expect(
            Redaction.maskingSecrets(in: "é postgresql://u:p?x@h/db, 1-postgres://v:q w@h")
                == "é postgresql://u:***@h/db, 1-postgres://v:***@h")
        #expect(Redaction.maskingSecrets(in: "://u:p@h") == "://u:***@h", "no name: an authority as any other")
    }

    @Test func sslpasswordAndUsersWithoutPasswordsAndHTTPAreAsBefore() {
        #expect(
            Redaction.maskingSecrets(in: "postgresql://u@h/db?sslpassword=k3y") == "postgresql://u@h/db?sslpassword=***"
        )
        #expect(Redaction.maskingSecrets(in: "postgresql://h/db") == "postgresql://h/db")
        #expect(Redaction.maskingSecrets(in: "https://u:pw@e.example/a?b#c") == "https://u:***@e.example/a?b#c")
        #expect(
            Redaction.maskingSecrets(in: "see https://e.example/x?token=t and mail a@b")
                == "see https://e.example/x?token=*** and mail a@b")
    }
}
