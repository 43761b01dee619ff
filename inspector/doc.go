// Package inspector is mnemo's memory inspector: web pages served by
// `mnemo serve` at /ui/ (html/template and embed: no build step, no CDN, no
// script; it works offline) that show a principal's threads, a thread's
// messages, observations (with links to their source turns) and
// working-memory versions with their diffs, and a run's memctx record as a
// picture: the prompt as a vertical timeline (system part with observation
// and working-memory sizes, recalled hits with score bars for both
// channels, their range neighbours, the recent window, dropped turns with
// the reason) and the replay as a diff (with or without recalled turns,
// observations or working memory, with the promptHash check).
// WriteRun renders the same run page as one self-contained file
// (`mnemo memctx RUN --html FILE`).
//
// # Imports
//
// Owns no data: it reads through engine and server. It may import engine,
// server and the packages whose types it renders (journal, observe, working),
// and internal/render for the characters the prompt escapes (render.Hidden).
//
// # Invariants
//
//   - Every page reads through server.Tenant: a thread or run of a
//     resource the principal may not touch is a 404 page, as one that does
//     not exist.
//   - All text is escaped by html/template; pages carry no script and load
//     nothing from elsewhere (the style sheet is inline).
//   - Stored text cannot reorder the page's own: every stored field is
//     isolated (a <bdi>, or a block with dir="auto"), and the characters
//     the model's prompt writes as escapes (render.Escaped: control
//     characters but tab and line feed, a carriage return no line feed
//     follows, line and paragraph separators, bidirectional controls, tag
//     and interlinear annotation characters; an id's every invisible
//     character) are shown as their code points, "[U+202E]", not applied
//     (bidi.go); a turn's preview on the run page has marker-shaped text
//     quoted as the prompt has it (render.Quote: "[quoted: recalled …").
//   - A page reads its query as the API does (server.CheckQuery,
//     server.IntParam, server.PageCursor): an unknown, repeated or empty
//     parameter, or a value out of range, is a 400 page naming it. The
//     sign-in page's next is a path of the inspector or a 400: it never
//     sends a browser elsewhere (no open redirect).
//   - The sign-in cookie holds a session id (server.Sessions), never the
//     bearer token. A page signed in by the cookie has the sign-out
//     button; the sign-out (Logout) is a POST only, refused from another
//     site as the sign-in is, ends the session on the server (a copy of
//     the cookie authenticates nothing after) and expires the cookie the
//     sign-in set.
//
// # Concurrency
//
// Handlers are safe for concurrent use; templates are parsed once.
//
// # Errors
//
// BuildRun and BuildThread return the server's errors (server.ErrNotFound
// for what the principal may not see), BuildRun a *engine.ValidationError
// naming "without" for a part it does not know or one given twice; the
// handlers render them, and the query's errors, as an error page with the
// status of server.Describe.
package inspector
