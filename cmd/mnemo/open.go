package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// creates reports whether the running command may create the data
// directory: only the writing commands do (ingest, wm set, serve, mcp, and
// demo in its own scratch directory). A read on a path that holds no
// memory fails (engine.ErrNotDataDir) instead of creating an empty one.
func (m *Main) creates() bool {
	switch m.command {
	case "ingest", "serve", "mcp", "demo":
		return true
	case "wm":
		return m.wmSet
	}
	return false
}

// readsOnly reports whether the running command only reads the memory:
// a listing, a record, an export, working memory read (wm get, wm
// history). Its engine is opened with engine.Config.KeepOutbox: the outbox
// rows are left exactly as they are (no message is indexed or embedded in
// passing, no retry is put off), for the next command that writes or
// searches. A subset of embedsNothing: check drains the outbox itself,
// and delete, expire, vacuum, observe and wm set write.
func (m *Main) readsOnly() bool {
	switch m.command {
	case "threads", "messages", "memctx", "runs", "replay", "export", "observations":
		return true
	case "wm":
		return !m.wmSet
	}
	return false
}

// holder names this process in the data directory's lock file: "mnemo"
// and the command.
func (m *Main) holder() string {
	return strings.TrimSpace("mnemo " + m.command)
}

// target is where the command's memory lives (chooseTarget decided it
// from --db, $MNEMO_DB, --dir and $MNEMO_DIR).
func (m *Main) target() target {
	return target{dir: m.Dir, dsn: m.DB, implicit: m.targetImplicit}
}

// open opens the engine on the chosen data directory or Postgres database.
// Stored observations are rendered into contexts (render-only: no model is
// called; mnemo observe runs the observer). Commands close it with
// CloseContext(ctx): the index batch in flight is finished (at most
// engine.CloseDrainWait), so each one-shot command gets catching up
// further, and the due shard snapshots are written; an interrupt (ctx
// cancelled) waits for neither.
func (m *Main) open(ctx context.Context) (*engine.Engine, error) {
	return m.openObserved(ctx, m.target(), nil)
}

// openAt opens the engine on dir with the chosen embedder and the
// directory's stored memory configuration (mnemo.json, written by mnemo
// serve --config). It fails at once when mnemo serve holds dir.
func (m *Main) openAt(ctx context.Context, dir string) (*engine.Engine, error) {
	return m.openObserved(ctx, target{dir: dir}, nil)
}

// openService opens the engine as open does, with the observer model of
// the stored configuration built (mnemo.json's observe section: endpoint,
// model, apiKeyEnv), so its background and syncOnLoad apply: mnemo mcp is a
// service, as mnemo serve is, and observes as serve's /mcp does. The
// one-shot commands stay render-only. The engine's warnings go to log,
// its events to events (nil: none).
func (m *Main) openService(ctx context.Context, log *slog.Logger, events chan engine.Event) (*engine.Engine, error) {
	t := m.target()
	if t.dir != "" {
		if err := checkNotServed(t.dir); err != nil {
			return nil, err
		}
	}
	cfg, err := m.engineConfig(ctx, t, nil, true)
	if err != nil {
		return nil, openStopped(ctx, t.dir, err)
	}
	cfg.Logger, cfg.Events = log, events
	return m.openEngine(ctx, cfg)
}

// openObserved opens the engine on t with the engine's events
// (engine.Config.Events) sent to events, a buffered channel the caller
// drains; nil sends none.
func (m *Main) openObserved(ctx context.Context, t target, events chan engine.Event) (*engine.Engine, error) {
	if t.dir != "" {
		if err := checkNotServed(t.dir); err != nil {
			return nil, err
		}
	}
	cfg, err := m.engineConfig(ctx, t, nil, false)
	if err != nil {
		return nil, openStopped(ctx, t.dir, err)
	}
	cfg.Events = events
	return m.openEngine(ctx, cfg)
}

// openStopped is err, the error of an open of the data directory dir (""
// for the Postgres database) that its context stopped (SIGINT, SIGTERM),
// said as where it stopped and that nothing stored changed: it said
// "interrupted: context canceled", or "read the directory's embedder: …
// context canceled", whichever step the signal met. err itself when the
// open was not interrupted; the commands that say more (check's stages,
// delete's "nothing was erased") wrap it in their own words.
func openStopped(ctx context.Context, dir string, err error) error {
	if err == nil || ctx.Err() == nil || !errors.Is(err, context.Canceled) {
		return err
	}
	if errors.As(err, new(*interruptedError)) {
		return err
	}
	where := "the Postgres database (--db)"
	if dir != "" {
		where = dir
	}
	return &interruptedError{"stopped while opening " + where + ": nothing stored was changed; run the command again", err}
}

// engineConfig builds the engine configuration of t: its store, the chosen
// embedder, then mc (or, when nil, a data directory's stored
// configuration; a Postgres database stores only the bounds: sharing).
// The observer model is built only withModel (mnemo serve and mnemo mcp).
func (m *Main) engineConfig(ctx context.Context, t target, mc *memoryConfig, withModel bool) (engine.Config, error) {
	if fi, err := os.Stat(t.dir); t.dir != "" && err == nil && !fi.IsDir() {
		return engine.Config{}, fmt.Errorf("%w: %s is a file, not a directory", engine.ErrNotDataDir, t.dir)
	}
	emb, err := m.embedder(ctx)
	if err != nil {
		return engine.Config{}, err
	}
	cfg := engine.Config{Embedder: emb, Observe: &engine.ObserveConfig{}, Holder: m.holder(), MustExist: !m.creates(), SwitchEmbedder: m.switchEmbedder,
		LazyEmbedder: m.embedsNothing(), BuildEmbedder: m.buildEmbedder(), KeepOutbox: m.readsOnly(), MigrateUnderLoad: m.migrateUnderLoad}
	if m.Getenv != nil {
		if cfg.Rerank, err = rerankFromEnv(m.Getenv); err != nil {
			return cfg, err
		}
	}
	if err := t.apply(&cfg); err != nil {
		return cfg, err
	}
	cfg.SharedBounds = t.sharing(mc)
	base := cfg // the defaults, for a recovery command (damagedConfig)
	if mc == nil {
		if mc, err = t.storedConfig(); err != nil {
			return m.damagedConfig(base, err)
		}
	}
	err = mc.apply(&cfg, m.Getenv, withModel)
	if err == nil {
		err = m.checkServed(mc)
	}
	if err != nil {
		if mc != nil && mc.stored {
			return m.damagedConfig(base, &storedConfigError{Dir: t.dir, Err: fmt.Errorf("%s: %w", mc.name(), err), implicit: t.implicit})
		}
		return cfg, fmt.Errorf("configuration %s: %w", mc.name(), err)
	}
	return cfg, nil
}

// sharing is engine.Config.SharedBounds of t with mc: on Postgres, where
// no directory keeps a mnemo.json, mnemo serve --config FILE stores the
// file's limits, retention and lifecycle as the database's, and every
// other process (serve without --config, mcp, ingest, context, expire…)
// applies those stored; a data directory's are its mnemo.json's.
func (t target) sharing(mc *memoryConfig) engine.BoundsSharing {
	switch {
	case t.dsn == "":
		return engine.BoundsOwn
	case mc != nil && mc.path != "" && !mc.stored:
		return engine.BoundsStore
	}
	return engine.BoundsStored
}

// damagedConfig returns base, the configuration with the engine's
// defaults, and err, the stored configuration that cannot be read or
// applied (a *storedConfigError), which fails every command but the
// recovery ones, mnemo check and mnemo salvage: a user runs them when
// something is wrong, and before a malformed mnemo.json refused them too
// (exit 1). They run with the defaults, and say so: m.configDamage holds
// err for them (check reports it as a finding, salvage warns). The
// defaults check and salvage the same store: mnemo.json names none (the
// store is --dir's; --db reads no mnemo.json), and none of its settings
// changes what they read or write (its lifecycle, retention and limits
// bound what is kept and appended; without them nothing is erased).
func (m *Main) damagedConfig(base engine.Config, err error) (engine.Config, error) {
	var sce *storedConfigError
	if m.command != "check" && m.command != "salvage" || !errors.As(err, &sce) {
		return base, err
	}
	if m.configDamage == nil {
		m.configDamage = sce
	}
	return base, nil
}

// embedder returns the embedder --embedder or $MNEMO_EMBEDDER names, or the
// default: use-lite when its weights are in the models directory, else
// hash-384.
//
// auto returns nil: the engine then uses the directory's recorded embedder,
// and for a new directory the default. A named embedder is an explicit
// choice: on a directory recorded with another one a command that embeds
// fails and says to run `mnemo --embedder NAME reindex --vectors`, which
// switches; one that embeds nothing (embedsNothing) runs with the recorded
// one, and gets use-lite unloaded (loaded on first use). Its openai is
// not built either (nil; no key, model or dimension probe needed):
// the engine builds it (buildEmbedder) only for a directory recorded with
// an OpenAI-compatible model, or recording none yet unless the command
// only reads (readsOnly: it records nothing).
func (m *Main) embedder(ctx context.Context) (recall.Embedder, error) {
	switch m.Embedder {
	case "", "auto":
		return nil, nil
	case "openai":
		if m.defersOpenAI() {
			return nil, nil
		}
	}
	return m.embedderNamed(ctx, m.Embedder)
}

// defersOpenAI reports whether a --embedder openai is left unbuilt at open,
// for the engine to build when the directory needs it (buildEmbedder): the
// command embeds nothing (embedsNothing), or its flags ask it to embed
// nothing of its own (Main.embedsNone: context without a recall flag,
// reindex without --vectors). Such a command needs no MNEMO_EMBED_MODEL
// nor key on a directory recorded with a built-in embedder; before, it
// exited 2 "MNEMO_EMBED_MODEL is not set" (walk48 F8).
func (m *Main) defersOpenAI() bool {
	return m.embedsNothing() || m.embedsNone
}

// buildEmbedder is engine.Config.BuildEmbedder for a --embedder openai
// that embedder left unbuilt (a command that embeds nothing), else nil:
// the engine calls it when the directory needs it, and its configuration
// errors (MNEMO_EMBED_MODEL not set, no key) are then the command's.
func (m *Main) buildEmbedder() func(context.Context, string) (recall.Embedder, error) {
	if m.Embedder != "openai" || !m.defersOpenAI() {
		return nil
	}
	return func(ctx context.Context, _ string) (recall.Embedder, error) {
		return m.embedderNamed(ctx, "openai")
	}
}

// checkServed checks mc's settings that only mnemo serve uses
// (memoryConfig.checkServed): for serve a refusal is the error; any other
// command (check, salvage, threads, mcp…) warns once on stderr, naming
// the field, and runs: c47c20b's refusal of a stored "requestTimeout":
// "999ms", taken before, had made every command exit 1, the recovery
// commands included.
func (m *Main) checkServed(mc *memoryConfig) error {
	err := mc.checkServed()
	if err == nil || m.command == "serve" {
		return err
	}
	if !m.warnedServed {
		m.warnedServed = true
		fmt.Fprintf(m.Stderr, "mnemo %s: warning: %s: %v; only mnemo serve uses it (and refuses to start until it is fixed)\n",
			cmp.Or(m.sub, m.command), mc.name(), err)
	}
	return nil
}
