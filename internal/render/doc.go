// Package render is the one place where stored text becomes prompt text.
//
// Everything mnemo writes into a prompt from its store — observation and
// reflection text, working memory, recalled and recent message content,
// tool output — passes through this package, so that stored text can never
// pass for mnemo's own structure:
//
//   - Text and JSON escape stored text placed inside a delimited block of the
//     system part ("<observations>", "<working_memory>"): '<', '>' and '&'
//     (and the full-width and small-form look-alikes of '<' and '>') become
//     character references (Text) or \uXXXX escapes (JSON), so no stored text
//     can open or close a tag. mnemo's own delimiters are written by Open and
//     Close, and are the only '<' of the system part.
//   - Message quotes marker-shaped text in message content: a "[recalled"
//     (any case; a square, round, curly or angle bracket, a guillemet
//     or a look-alike; letters read
//     as its own: full-width, mathematical and other compatibility forms,
//     accented letters, Cyrillic, Greek and other confusables, I and 1
//     for l, a character standing for several letters, "㎈" for "cal";
//     Unicode spaces, invisible characters or accents after the
//     bracket, and invisible characters or combining accents between the
//     letters, or spaces, dashes, dots and underscores between them; a
//     bracket written as an HTML reference, a backslash escape or
//     percent-encoded, "&#91;", "\u005b", "\133", "%5B": what a reader
//     sees once the text is normalised)
//     becomes "[quoted: recalled"; so do the marker's other phrases
//     when what only mnemo writes after them follows ("[recall · thread",
//     "[recall · seq 2", "[recall. thread", "|recalled · thread",
//     "[untrusted tool output]",
//     "[untrusted tools]": phraseDefs). A genuine
//     recall marker is written by mnemo at the very start of a recalled
//     message, after Message ran, so it is the only marker a prompt holds.
//     Text and JSON quote markers too.
//   - Every rendering writes each Hidden character (the bidirectional
//     controls, tag and interlinear annotation characters) and each
//     Control character (C0 but tab and line feed, DEL, C1, U+2028,
//     U+2029; a carriage return only when no line feed follows it) as an
//     escape: Message as \u202e, Text and Attr as &#x202E;, JSON and
//     HiddenJSON as the JSON escape (a lone carriage return, white space
//     between JSON tokens, as a space). Raw, they make text read one way
//     to a person and another to the model (Trojan Source,
//     CVE-2021-42574; a carriage return that draws the rest of a line over
//     its start in a terminal).
//   - Time and ZoneName write the dates of markers and observations with
//     their time zone; ParseZone reads a zone name back (replay).
//
// Nothing here changes what is stored: escaping happens at render time, so
// the store keeps what was said, and turns stored before a rule existed are
// rendered by the rule.
//
// # Imports
//
// Owns no data. It imports nothing of mnemo, so every package that renders
// stored text can use it.
//
// # Invariants
//
//   - For every s, Text(s), JSON(s) and Attr(s) contain no '<' or '>' and no
//     marker-shaped text; Message(s) and Quote(s) contain no marker-shaped
//     text. None of Text, JSON, Attr, Message and HiddenJSON of s contains
//     a Hidden or Control character, nor a carriage return no line feed
//     follows (Quote leaves them: Message(Quote(s)) is Message(s)). Each is
//     idempotent on its own output's structure (a quoted marker is not a
//     marker).
//   - Escaping is lossless for Text and JSON: the original is recovered by
//     decoding the references (Text) or the JSON string (JSON), up to the
//     inserted "quoted: " (and, for JSON, a carriage return between tokens
//     written as a space).
//
// # Concurrency
//
// Every function is pure and safe for concurrent use.
//
// # Errors
//
// ParseZone returns ErrUnknownZone for a zone name it cannot resolve.
package render
