package inspector

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
)

//go:embed templates/*.html templates/style.css
var files embed.FS

// pages are parsed once: each page is the layout, the style and its content.
var pages = map[string]*template.Template{}

var funcs = template.FuncMap{
	// count is n and noun, plural unless n is 1: "1 message", "7 messages".
	"count": func(n int64, noun string) string {
		if n == 1 {
			return "1 " + noun
		}
		return fmt.Sprintf("%d %ss", n, noun)
	},
	"kindLabel": func(k string) string {
		return map[string]string{"hit": "recalled hit", "range": "range neighbour", "repair": "pairing repair", "recent": "recent",
			"observation": "observation", "working-memory": "working memory",
			"unsettled": "outcome unknown"}[k]
	},
	"fmtScore": func(p *float64) string {
		if p == nil {
			return "–"
		}
		return fmt.Sprintf("%.3f", *p)
	},
	"diffClass": func(op string) string { return map[string]string{"-": "del", "+": "add"}[op] },
	"has":       func(list []string, s string) bool { return slices.Contains(list, s) },
	"short": func(h string) string {
		if len(h) > 19 {
			return h[:19] + "…"
		}
		return h
	},
	"ms": func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05") },
	// textPieces, idPieces and title show stored text with the
	// characters a reader must see as markers (bidi.go).
	"dotID":      dotID,
	"textPieces": textPieces,
	"idPieces":   idPieces,
	"title":      plainTitle,
}

func init() {
	for _, name := range []string{"index", "thread", "run", "error"} {
		t := template.Must(template.New(name).Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/style.css", "templates/"+name+".html"))
		pages[name] = t
	}
}

// page is what every template gets.
type page struct {
	Title   string
	Version string
	Links   bool
	// SignOut shows the sign-out button (signedInByCookie).
	SignOut bool
	Data    any
	// Content is the page's "content" template as rendered (execPage),
	// and Marked says it, or the title, shows a character as a marker:
	// the layout then says what the markers are (the bidi note).
	Content template.HTML
	Marked  bool
}

// markerTag begins every marker the "piece" template writes (layout.html);
// stored text cannot hold it, html/template escapes its "<".
const markerTag = `<span class="cp `

// execPage writes page name with p: its content first, then the layout
// around it, which holds the note on markers only when the content or
// the title shows one. (A note in every page hidden by CSS :has() was
// shown by every reader without it: a text browser, html2text.)
func execPage(w io.Writer, name string, p page) error {
	var b strings.Builder
	if err := pages[name].ExecuteTemplate(&b, "content", p); err != nil {
		return err
	}
	p.Content = template.HTML(b.String())
	p.Marked = strings.Contains(b.String(), markerTag) || slices.ContainsFunc(idPieces(p.Title), func(pc piece) bool { return pc.Marked })
	return pages[name].ExecuteTemplate(w, "layout", p)
}

// Options configure the inspector.
type Options struct {
	// Version is shown in the footer; "" means "dev".
	Version string
	// Logger receives render errors; nil means none.
	Logger *slog.Logger
	// Timeout bounds the building of each page, from the request's
	// arrival (its context's deadline: the engine's calls honour it); 0
	// means DefaultTimeout. A page not built in time is the 503 "Request
	// timed out" error page. Before, a page on a database that had
	// stopped answering waited for as long as its client did (a mount
	// gets no server.Config.RequestTimeout; mnemo serve gives this that
	// value). One below server.MinRequestTimeout (1 s), the shortest the
	// HTTP API takes, is raised to it, with a warning on Logger: with
	// 1 ns every page was the timeout page.
	Timeout time.Duration
}

// DefaultTimeout is Options.Timeout's default.
const DefaultTimeout = time.Minute

// errPageTimeout is the cause of a page's context that reached
// Options.Timeout.
var errPageTimeout = errors.New("inspector: page timeout")

// bounded runs h with a context that ends after d, with cause
// errPageTimeout (render tells it from the client hanging up).
func bounded(d time.Duration, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeoutCause(r.Context(), d, errPageTimeout)
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// Handler returns the handler factory to mount at /ui/ on a server.Server
// (server.Config.Mount): each request sees what its principal may see.
func Handler(e *engine.Engine, opt Options) func(p *server.Principal) http.Handler {
	if opt.Version == "" {
		opt.Version = "dev"
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	switch {
	case opt.Timeout <= 0:
		opt.Timeout = DefaultTimeout
	case opt.Timeout < server.MinRequestTimeout:
		opt.Logger.Warn("inspector: Options.Timeout is below server.MinRequestTimeout, which bounds the pages instead (a shorter bound cuts off pages that would be built)",
			"timeout", opt.Timeout.String(), "bound", server.MinRequestTimeout.String())
		opt.Timeout = server.MinRequestTimeout
	}
	return func(p *server.Principal) http.Handler {
		t := server.Tenant{Engine: e, Principal: p}
		mux := http.NewServeMux()
		mux.HandleFunc("GET /ui/{$}", func(w http.ResponseWriter, r *http.Request) {
			limit, cursor, offset, err := indexQuery(r)
			var v *IndexView
			if err == nil {
				v, err = BuildIndex(r.Context(), t, limit, cursor, offset)
			}
			render(w, r, t, opt, "index", "threads", v, err)
		})
		mux.HandleFunc("GET /ui/threads/{thread}", func(w http.ResponseWriter, r *http.Request) {
			before, err := threadQuery(r)
			var v *ThreadView
			if err == nil {
				v, err = BuildThread(r.Context(), t, r.PathValue("thread"), before)
			}
			render(w, r, t, opt, "thread", "thread "+r.PathValue("thread"), v, err)
		})
		mux.HandleFunc("GET /ui/runs/{run}", func(w http.ResponseWriter, r *http.Request) {
			without, err := runQuery(r)
			var v *RunView
			if err == nil {
				v, err = BuildRun(r.Context(), t, r.PathValue("run"), without)
			}
			render(w, r, t, opt, "run", "run "+r.PathValue("run"), v, err)
		})
		// Else net/http's plain "404 page not found" (/ui/threads/t1/).
		mux.Handle("/ui/", notFound(mux, opt.Version))
		return bounded(opt.Timeout, mux)
	}
}

// render writes a page, or an error page with the error's status (as t's
// API routes answer it: a lost database connection is the 503
// "unavailable" page, not a 500), with the sign-out button when r was
// signed in by the cookie, and the headers of secure.
func render(w http.ResponseWriter, r *http.Request, t server.Tenant, opt Options, name, title string, data any, err error) {
	// Chromium's back/forward cache may still show the last page on Back
	// after a sign-out, no-store or not (docs/serve.md).
	secure(w.Header(), pageCSP)
	status := http.StatusOK
	if err != nil && errors.Is(context.Cause(r.Context()), errPageTimeout) {
		err = server.Timeout(err, opt.Timeout)
	}
	if err != nil {
		pr := t.Describe(err)
		status, name, title, data = pr.Status, "error", pr.Title, pr
	}
	var b strings.Builder
	if terr := execPage(&b, name, page{Title: title, Version: opt.Version, Links: true, SignOut: signedInByCookie(r, t.Principal), Data: data}); terr != nil {
		opt.Logger.Error("inspector: render", "page", name, "err", terr)
		http.Error(w, "render failed", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(status)
	io.WriteString(w, b.String())
}

// WriteRun writes the run page of runID as one self-contained HTML file
// (inline style, no links that need a server), replayed as recorded:
// `mnemo memctx RUN --html FILE`.
func WriteRun(ctx context.Context, w io.Writer, e *engine.Engine, runID, version string) error {
	v, err := BuildRun(ctx, server.Tenant{Engine: e, Principal: server.Operator}, runID, nil)
	if err != nil {
		return err
	}
	v.Links = false
	return execPage(w, "run", page{Title: "run " + runID, Version: version, Links: false, Data: v})
}

// dotID reports whether id is "." or "..", which a store written before
// engine.ValidNewID may hold as a thread or run id: the pages show it
// without a link (template "unlinked"), since WHATWG URL parsing reads
// "..", ".%2e" and "%2E%2E" alike as a dot segment, so any link to its
// page leads elsewhere (/ui/threads/%2E%2E to /ui/). The pages themselves
// answer a client that sends the path as written.
func dotID(id string) bool { return id == "." || id == ".." }
