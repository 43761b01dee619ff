package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mnemo-go/mnemo/internal/models"
	"github.com/mnemo-go/mnemo/internal/shellword"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/recall/uselite"
)

// This file makes a data directory's embedder sticky. The directory records
// the id of the embedder its vectors were computed with (journal scope
// ScopeMeta, key "embedder"). Opened without an explicit embedder, the
// recorded one is used; opened with another one, Open refuses unless
// Config.SwitchEmbedder (or Config.LazyEmbedder: the other one is not
// used), so that the vector channel never searches a
// collection in which none of the stored messages is embedded while Check
// says nothing of it.

// ScopeMeta is the journal scope of the directory's own settings; key
// "embedder" holds the embedder id its vectors were computed with.
const ScopeMeta = "meta"

const metaEmbedder = "embedder"

// EmbedderMismatchError is returned by Open (matching ErrEmbedderMismatch)
// when Config.Embedder is not the embedder recorded for the directory and
// Config.SwitchEmbedder is false, or when the recorded embedder cannot be
// loaded without being given.
type EmbedderMismatchError struct {
	Dir       string // the data directory; "" on Postgres
	Recorded  string // the directory's embedder id
	Requested string // Config.Embedder's id; "" when none was given
	Cause     error  // why the recorded embedder could not be loaded, or nil
}

// Error implements error and says what to do.
func (e *EmbedderMismatchError) Error() string {
	if e.Requested == "" {
		return fmt.Sprintf("engine: %s was embedded with %s, which cannot be loaded (%v): give it as Config.Embedder (CLI: --embedder), or re-embed with another one (CLI: mnemo %s --embedder NAME reindex --vectors)",
			e.where(), e.Recorded, e.Cause, e.cliTarget())
	}
	return fmt.Sprintf("engine: %s was embedded with %s, not %s: open it with %s (CLI: leave --embedder out), or re-embed every message with %s (CLI: mnemo %s --embedder %s reindex --vectors; library: Config.SwitchEmbedder)",
		e.where(), e.Recorded, e.Requested, e.Recorded, e.Requested, e.cliTarget(), cliName(e.Requested))
}

// cliTarget is the CLI's global flag that names the memory, for the
// command the error suggests: "--dir DIR" (quoted for a shell when
// needed), or "--db URL" on Postgres. Without it the command re-embedded
// ./mnemo-data, or $MNEMO_DIR, not the directory refused (readme54).
func (e *EmbedderMismatchError) cliTarget() string {
	if e.Dir == "" {
		return "--db URL"
	}
	return "--dir " + shellword.Quote(e.Dir)
}

// where names the memory: its data directory, or the Postgres database.
func (e *EmbedderMismatchError) where() string {
	if e.Dir == "" {
		return "the Postgres database"
	}
	return "data directory " + e.Dir
}

// Unwrap returns ErrEmbedderMismatch and, when set, Cause (so that
// errors.Is(err, uselite.ErrNotInstalled) holds for a use-lite that is not
// installed).
func (e *EmbedderMismatchError) Unwrap() []error {
	if e.Cause == nil {
		return []error{ErrEmbedderMismatch}
	}
	return []error{ErrEmbedderMismatch, e.Cause}
}

// cliName is the --embedder value for an embedder id.
func cliName(id string) string {
	if len(id) > 7 && id[:7] == "openai:" {
		return "openai"
	}
	return id
}

// chooseEmbedder settles the engine's embedder against the directory's
// record (see the top of this file) and records it. It runs at Open, before
// the indexes open. With Config.LazyEmbedder on a directory that records
// an embedder, deferEmbedder settles it instead.
func (e *Engine) chooseEmbedder(ctx context.Context) error {
	rec, err := e.recordedEmbedder(ctx)
	if err != nil {
		return err
	}
	if e.cfg.LazyEmbedder && rec != "" {
		return e.deferEmbedder(ctx, rec)
	}
	switch {
	case e.cfg.Embedder == nil && rec == "":
		if e.cfg.Embedder, err = e.unrecordedEmbedder(ctx); err != nil {
			return err
		}
	case e.cfg.Embedder == nil:
		if e.cfg.Embedder, err = loadBuiltin(rec); err != nil {
			if e.cfg.BuildEmbedder != nil {
				return e.buildRecorded(ctx, rec)
			}
			return &EmbedderMismatchError{Dir: e.dir, Recorded: rec, Cause: err}
		}
	case rec != "" && e.cfg.Embedder.ID() != rec:
		if !e.cfg.SwitchEmbedder {
			return &EmbedderMismatchError{Dir: e.dir, Recorded: rec, Requested: e.cfg.Embedder.ID()}
		}
		e.log.Warn("switching the directory's embedder; every message is embedded again", "from", rec, "to", e.cfg.Embedder.ID())
		e.publish(Event{Reason: EventRebuild, Detail: fmt.Sprintf("embedder switched from %s to %s: re-embedding every message", rec, e.cfg.Embedder.ID())})
	}
	if rec == "" && e.cfg.KeepOutbox {
		return nil // a read records nothing (Config.KeepOutbox)
	}
	if id := e.cfg.Embedder.ID(); id != rec {
		return e.recordEmbedder(ctx, id)
	}
	return nil
}

// unrecordedEmbedder returns the embedder of a directory that records none
// yet, Config.Embedder being nil: Config.BuildEmbedder's (not for a
// KeepOutbox open, which records nothing and embeds nothing), else the
// default (uselite.OpenDefault).
func (e *Engine) unrecordedEmbedder(ctx context.Context) (recall.Embedder, error) {
	if e.cfg.BuildEmbedder != nil && !e.cfg.KeepOutbox {
		return e.cfg.BuildEmbedder(ctx, "")
	}
	emb, err := uselite.OpenDefault(nil)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return emb, nil
}

// buildRecorded sets the engine's embedder to Config.BuildEmbedder's for a
// directory recorded with rec, an embedder that is not built in: its error
// as returned, an *EmbedderMismatchError when it is not rec.
func (e *Engine) buildRecorded(ctx context.Context, rec string) error {
	emb, err := e.cfg.BuildEmbedder(ctx, rec)
	if err != nil {
		return err
	}
	if emb.ID() != rec {
		return &EmbedderMismatchError{Dir: e.dir, Recorded: rec, Requested: emb.ID()}
	}
	e.cfg.Embedder = emb
	return nil
}

// deferEmbedder settles the embedder of a Config.LazyEmbedder open on a
// directory recording rec, loading nothing: Config.Embedder when it is rec,
// else the built-in rec opened on first use (lazyBuiltin); a Config.Embedder
// of another id is then not used, and said at Info on the log. The record
// stays as it is. An embedder that is not built in (an OpenAI-compatible
// model) must still be given, or built by Config.BuildEmbedder when none
// is: an *EmbedderMismatchError as without LazyEmbedder.
func (e *Engine) deferEmbedder(ctx context.Context, rec string) error {
	given := e.cfg.Embedder
	if given != nil && given.ID() == rec {
		return nil
	}
	emb, err := e.lazyBuiltin(rec)
	if err != nil {
		if given == nil && e.cfg.BuildEmbedder != nil {
			return e.buildRecorded(ctx, rec)
		}
		if given != nil {
			return &EmbedderMismatchError{Dir: e.dir, Recorded: rec, Requested: given.ID()}
		}
		return &EmbedderMismatchError{Dir: e.dir, Recorded: rec, Cause: err}
	}
	if given != nil {
		e.log.Info("the directory's recorded embedder is used, not the one given (nothing is embedded with it)", "recorded", rec, "given", given.ID())
	}
	e.cfg.Embedder = emb
	return nil
}

// lazyBuiltin returns the built-in embedder id without loading it:
// hash-384 (nothing to load), or use-lite opened on first use
// (recall.NewLazy), whose open failure is an *EmbedderMismatchError
// wrapping the cause (uselite.ErrNotInstalled when it is not installed).
func (e *Engine) lazyBuiltin(id string) (recall.Embedder, error) {
	switch id {
	case recall.HashID:
		return recall.HashEmbedder{}, nil
	case uselite.ID:
		return recall.NewLazy(uselite.ID, uselite.Dims, true, func() (recall.Embedder, error) {
			emb, err := loadBuiltin(uselite.ID)
			if err != nil {
				return nil, &EmbedderMismatchError{Dir: e.dir, Recorded: uselite.ID, Cause: err}
			}
			return emb, nil
		}), nil
	}
	return nil, fmt.Errorf("%s is not built in: it needs its endpoint's configuration", id)
}

// loadBuiltin loads an embedder the engine can build on its own from its
// id: hash-384, or use-lite from the models directory.
func loadBuiltin(id string) (recall.Embedder, error) {
	switch id {
	case recall.HashID:
		return recall.HashEmbedder{}, nil
	case uselite.ID:
		root, err := models.Dir(nil)
		if err != nil {
			return nil, err
		}
		dir := models.Path(root, uselite.ID)
		if _, err := os.Stat(filepath.Join(dir, uselite.ModelFile)); errors.Is(err, fs.ErrNotExist) {
			return nil, notInstalledError{root}
		}
		return uselite.Open(uselite.Config{Dir: dir})
	}
	return nil, fmt.Errorf("%s is not built in: it needs its endpoint's configuration", id)
}

// notInstalledError is loadBuiltin's error when use-lite's weights are
// not in the models directory root: it names root and the command that
// installs them, and matches uselite.ErrNotInstalled.
type notInstalledError struct{ root string }

func (e notInstalledError) Error() string {
	return fmt.Sprintf("use-lite is not installed in %s (mnemo models fetch use-lite)", e.root)
}

// Unwrap returns uselite.ErrNotInstalled.
func (e notInstalledError) Unwrap() error { return uselite.ErrNotInstalled }

// recordedEmbedder returns the directory's embedder id: the record, else
// (a directory written before the record existed) the embedder most of its
// stored vectors come from, else "".
func (e *Engine) recordedEmbedder(ctx context.Context) (string, error) {
	b, err := e.journal.Recorded(ctx, ScopeMeta, metaEmbedder)
	if err == nil {
		return string(b), nil
	}
	if !errors.Is(err, journal.ErrNotFound) {
		return "", fmt.Errorf("engine: read the directory's embedder: %w", err)
	}
	id, _, err := e.ms.PredominantEmbedder(ctx)
	if err != nil {
		return "", fmt.Errorf("engine: read the directory's embedder: %w", err)
	}
	return id, nil
}

// recordEmbedder records id as the directory's embedder.
func (e *Engine) recordEmbedder(ctx context.Context, id string) error {
	if err := e.journal.Set(ctx, ScopeMeta, metaEmbedder, []byte(id)); err != nil {
		return fmt.Errorf("engine: record the directory's embedder: %w", err)
	}
	return nil
}

// Embedder returns the embedder the engine uses: Config.Embedder, or the
// one Open chose (the directory's recorded embedder, else the default).
// With Config.LazyEmbedder it may not be loaded yet: recall.Lazy returns
// its *recall.LazyEmbedder (Loaded reports whether it is).
func (e *Engine) Embedder() recall.Embedder { return e.embedder() }
