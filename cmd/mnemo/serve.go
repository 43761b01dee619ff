package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/inspector"
	"github.com/mnemo-go/mnemo/mcpserver"
	"github.com/mnemo-go/mnemo/server"
)

// DefaultListen is mnemo serve's default address: loopback only.
const DefaultListen = "127.0.0.1:7077"

// ServeCommand is `mnemo serve`: serve the HTTP API (/v1), MCP (/mcp), the
// inspector (/ui/), /metrics and /openapi.json over the data directory.
// Like every command it embeds Main: the process environment and the
// global flags.
type ServeCommand struct{ *Main }

// Run is `mnemo serve`: it owns the data directory (a flock on
// serve.lock; other commands on it fail at once) and serves the HTTP API
// until SIGINT or SIGTERM, then lets in-flight requests finish (up to
// serveDrain, 20 s) and closes the engine. Its stages: the flags and the
// token file read (parseArgs), the configuration read and checked
// (servedConfig), the address listened on and the directory locked, the
// engine opened with the event log, the expiry sweep started, the server
// built (newServer) and announced, then served.
func (c *ServeCommand) Run(ctx context.Context, args []string) error {
	a, err := c.parseArgs(args)
	if err != nil {
		return err
	}
	// The configuration is read and checked before anything is created:
	// a refused one leaves the data directory as it was.
	mc, cfg, err := c.servedConfig(ctx, a.configFile)
	if err != nil {
		return err
	}
	ln, err := c.listen(a.fs, a.listen, a.tokens != nil)
	if err != nil {
		return c.busy(err)
	}
	defer ln.Close()
	url := "http://" + ln.Addr().String()
	release := func(undo bool) {}
	if c.DB == "" { // on Postgres any number of processes serve one database
		if release, err = lockServe(c.Dir, url); err != nil {
			return err
		}
	}
	// One log for the engine's warnings (a quarantined index, a failed
	// embedding, damage met, an observer behind) and the server's access
	// lines; the engine's went nowhere before (Config.Logger nil).
	log := slog.New(slog.NewJSONHandler(c.Stderr, nil))
	cfg.Logger = log
	// Each erasure the engine does on its own account (expiry, a quota's
	// eviction), quarantine and rebuild is logged (eventlog.go) and counted
	// in /metrics; they were silent before.
	events := startEventLog(log)
	defer events.Stop()
	cfg.Events = events.ch
	e, err := c.openServed(ctx, cfg, mc, a.configFile)
	if err != nil {
		release(true) // the engine did not open: no serve.lock (nor a directory) left behind
		return err
	}
	defer release(false)
	defer e.Close()
	requestTimeout, err := mc.Server.requestTimeout() // checked with the configuration (checkServed)
	if err != nil {
		return err
	}
	stopSweep := c.startSweep(ctx, e, log, mc) // lifecycle.go: expiry every lifecycle.sweepEvery
	defer stopSweep()
	srv, err := newServer(e, a.tokens, log, mc.Server, requestTimeout)
	if err != nil {
		return err
	}
	events.alsoTo(srv.CountEvent)
	c.announce(url, a.tokens != nil)
	if err := srv.Serve(ctx, ln); err != nil {
		return err
	}
	fmt.Fprintf(c.Stderr, "mnemo serve: stopped; closing the engine\n")
	stopSweep()
	return e.Close()
}

// serveArgs is what `mnemo serve` was asked, its flags checked.
type serveArgs struct {
	fs         *flag.FlagSet  // listen's value error names its flag
	listen     string         // --listen
	configFile string         // --config, "" for none
	tokens     *server.Tokens // --tokens' file, read; nil without it
}

// parseArgs parses the flags of `mnemo serve` from args and reads the
// token file: a usage error for an argument, a value error for a flag
// given empty, the token file's error as server.LoadTokens says it.
func (c *ServeCommand) parseArgs(args []string) (serveArgs, error) {
	fs := c.flags("serve", "")
	listen := fs.String("listen", DefaultListen, "address to listen on; beyond loopback it needs --tokens")
	tokensFile := fs.String("tokens", "", `token file: {"tokens":[{"name","token","resources":["r1"] or ["*"],"erase"}]} (docs/serve.md)`)
	configFile := fs.String("config", "", "memory configuration (JSON: "+configMembers+"); stored in the data directory as "+StoredConfigFile+" (on Postgres its limits, retention and lifecycle are stored in the database, for every process)")
	if err := parse(fs, args); err != nil {
		return serveArgs{}, err
	}
	if fs.NArg() != 0 {
		return serveArgs{}, c.noArgs(fs, "")
	}
	if err := c.checkGiven(fs, "--tokens", "a token file (without one every request is the operator's)", "--config", "a configuration file"); err != nil {
		return serveArgs{}, err
	}
	a := serveArgs{fs: fs, listen: *listen, configFile: *configFile}
	if *tokensFile != "" {
		var err error
		if a.tokens, err = server.LoadTokens(*tokensFile); err != nil {
			return serveArgs{}, err
		}
		c.warnOpenTokenFile(*tokensFile)
	}
	return a, nil
}

// newServer is the HTTP server of e: the API with tokens (nil: every
// request the operator's), /mcp and the inspector mounted, its bounds from
// sc (nil: the defaults) and requestTimeout, its access lines on log.
func newServer(e *engine.Engine, tokens *server.Tokens, log *slog.Logger, sc *serverConfig, requestTimeout time.Duration) (*server.Server, error) {
	var maxBody int64
	var maxConns int
	if sc != nil {
		maxBody, maxConns = sc.MaxBodyBytes, sc.MaxConnections
	}
	// The inspector's sign-in sessions live in this process: a restart
	// ends every one (docs/serve.md, "The inspector").
	sessions, err := server.NewSessions(server.SessionOptions{})
	if err != nil {
		return nil, err
	}
	// One budget of failed authentications per client address for the
	// API, /mcp and the sign-in form (docs/serve.md, "Failed tokens").
	limiter, err := server.NewAuthLimiter(server.AuthLimitOptions{Logger: log})
	if err != nil {
		return nil, err
	}
	return server.New(server.Config{Engine: e, Tokens: tokens, Sessions: sessions, AuthLimiter: limiter, Logger: log, MaxBodyBytes: maxBody, MaxConns: maxConns, RequestTimeout: requestTimeout, Version: version(),
		ShutdownTimeout: serveDrain, // signals.go: inside the CLI's serveStopGrace
		Mount: map[string]func(*server.Principal) http.Handler{
			"/mcp": mcpserver.Handler(e, mcpserver.Options{Version: version(), Logger: log, ToolTimeout: requestTimeout}),
			"/ui/": inspector.Handler(e, inspector.Options{Version: version(), Logger: log, Timeout: requestTimeout}),
		},
		Public:      map[string]http.Handler{inspector.LoginPath: inspector.Login(tokens, sessions, limiter), inspector.LogoutPath: inspector.Logout(sessions)},
		LoginPath:   inspector.LoginPath,
		CookieMount: "/ui/",
	})
}

// announce says on standard error where the server at url listens, what
// it serves there and, without tokens, that every request is the
// operator's.
func (c *ServeCommand) announce(url string, haveTokens bool) {
	fmt.Fprintf(c.Stderr, "mnemo serve: listening on %s (data %s); API %s/v1, MCP %s/mcp, inspector %s/ui/, document %s/openapi.json\n", url, c.target(), url, url, url, url)
	if !haveTokens {
		fmt.Fprintf(c.Stderr, "mnemo serve: no --tokens: every request acts as the operator (all resources, erasure); listening on loopback only\n")
	}
}

// listen opens the listener, refusing an address beyond loopback without
// tokens: a value error (exit 2) of one line saying why, not the usage
// (which buried that line under the flags).
func (c *ServeCommand) listen(fs *flag.FlagSet, addr string, haveTokens bool) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	var ae *net.AddrError
	switch {
	case strings.Contains(addr, "://"):
		_, rest, _ := strings.Cut(addr, "://")
		return nil, c.valuef(fs, "--listen %q: give HOST:PORT without a scheme, e.g. %s", addr, listenExample(strings.TrimSuffix(rest, "/")))
	case errors.As(err, &ae) && ae.Err == "missing port in address" && isPort(addr):
		// A number alone is the port (readme57: "7081" has no host).
		return nil, c.valuef(fs, "--listen %q has no host: give HOST:PORT, e.g. %s", addr, listenExample(addr))
	case errors.As(err, &ae) && ae.Err == "missing port in address":
		return nil, c.valuef(fs, "--listen %q has no port: give HOST:PORT, e.g. %s", addr, listenExample(addr))
	case err != nil:
		return nil, c.valuef(fs, "--listen %q: %v", addr, err)
	case outOfRange(port):
		// It was net.Listen's "address 99999: invalid port", exit 1.
		return nil, c.valuef(fs, "--listen %q: the port must be within 0 to 65535, got %s", addr, port)
	case !haveTokens && !loopback(host):
		return nil, c.valuef(fs, "--listen %s is not a loopback address (localhost, 127.0.0.1, [::1]), so it may be reachable beyond this machine, "+
			"and without a token file every request acts as the operator: give --tokens FILE, or listen on %s", addr, net.JoinHostPort("127.0.0.1", port))
	}
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		// A second data directory served beside the first: the flag
		// that moves it.
		return nil, fmt.Errorf("%w (another server on it? choose another with --listen %s)", err, net.JoinHostPort(host, "PORT"))
	}
	return ln, err
}

// listenExample is the HOST:PORT to suggest for a --listen value addr
// that has no port (or for what follows its scheme): a HOST:PORT as is, a number is taken for the port (`--listen 7081`:
// 127.0.0.1:7081, where 7081:7077 read it as a host), anything else for
// the host, on the default port.
func listenExample(addr string) string {
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return addr // after a scheme: http://127.0.0.1:7081
	}
	if isPort(addr) {
		return net.JoinHostPort("127.0.0.1", addr)
	}
	return net.JoinHostPort(addr, "7077")
}

// isPort reports whether s is a port number, 1 to 65535.
func isPort(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n > 0 && n < 65536
}

// outOfRange reports whether port is a number outside 0 to 65535 (a
// service name such as "http" is left to net.Listen).
func outOfRange(port string) bool {
	n, err := strconv.Atoi(port)
	return err == nil && (n < 0 || n > 65535)
}

// busy is err, listen's error, said first as the data directory
// already served when another mnemo serve holds it: that serve most often
// holds the address too (the same command run twice), and the port's
// "address already in use" sent the reader to choose another port, where
// this serve would then be refused for the directory.
func (c *ServeCommand) busy(err error) error {
	if c.DB != "" || !errors.Is(err, syscall.EADDRINUSE) {
		return err
	}
	if holder, ok := servedBy(c.Dir); ok {
		return fmt.Errorf("%s is already served (%s): use that server, or stop it first (its address is in use too: %w)", c.Dir, holder, errors.Unwrap(err))
	}
	return err
}

// loopback reports whether host names only the loopback interface.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// servedConfig reads the --config file (or, without one, the directory's
// stored configuration; none is an empty one) and builds the engine's
// configuration from it, checking it whole (the working-memory schema
// too): it creates nothing.
func (c *ServeCommand) servedConfig(ctx context.Context, configFile string) (*memoryConfig, engine.Config, error) {
	var mc *memoryConfig
	var err error
	if configFile != "" {
		mc, err = readMemoryConfig(configFile)
	} else {
		mc, err = c.target().storedConfig()
	}
	if err != nil {
		return nil, engine.Config{}, err
	}
	if mc == nil {
		mc = &memoryConfig{}
	}
	cfg, err := c.engineConfig(ctx, c.target(), mc, true)
	return mc, cfg, err
}

// openServed opens the engine with cfg and, for a --config file, stores
// mc in the data directory (on Postgres the file is not stored: there is
// no directory; the engine stores its limits, retention and lifecycle in
// the database, engine.BoundsStore, and openServed says so when they
// replace other ones); working memory's configuration is stored in the
// database either way.
func (c *ServeCommand) openServed(ctx context.Context, cfg engine.Config, mc *memoryConfig, configFile string) (*engine.Engine, error) {
	e, err := c.openEngine(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if cfg.WorkingMemory != nil {
		if _, err := e.WorkingMemory(); err != nil { // a bad schema fails now, not on the first request
			e.Close()
			return nil, err
		}
	}
	if configFile != "" && c.DB == "" {
		if err := mc.store(c.Dir); err != nil {
			e.Close()
			return nil, fmt.Errorf("store the configuration: %w", err)
		}
	}
	if b := e.Bounds(); b.Replaced != nil {
		fmt.Fprintf(c.Stderr, "mnemo serve: the database's limits, retention and lifecycle are now %s's (they were other ones): "+
			"every process that opens the database from now on applies them; one already running keeps those it opened with until it restarts\n", configFile)
	}
	return e, nil
}

// warnOpenTokenFile warns when the token file is readable or writable by
// other users than its owner (unix modes): its secrets grant access to
// memory, as an ssh key's do.
func (c *ServeCommand) warnOpenTokenFile(path string) {
	fi, err := os.Stat(path)
	if err != nil || runtime.GOOS == "windows" || fi.Mode().Perm()&0o077 == 0 {
		return
	}
	fmt.Fprintf(c.Stderr, "mnemo serve: warning: the token file %s is open to other users (mode %04o); its secrets grant access to memory: chmod 600 %s\n",
		path, fi.Mode().Perm(), path)
}
