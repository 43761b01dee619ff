package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/mnemo-go/mnemo/internal/models"
)

// ModelsCommand is `mnemo models`: fetch and list local models (use-lite
// embedder weights). Like every command it embeds Main: the process
// environment and the global flags.
type ModelsCommand struct{ *Main }

// Run dispatches `mnemo models fetch|list`.
func (c *ModelsCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags("models", "fetch [--registry URL] [--force] NAME... | list [--json]")
	if len(args) == 0 {
		return c.usagef(fs, "models needs a subcommand: fetch or list")
	}
	switch args[0] {
	case "fetch":
		return c.fetch(ctx, args[1:])
	case "list":
		return c.list(args[1:])
	case "-h", "-help", "--help":
		fs.Usage()
		return nil
	default:
		return c.usagef(fs, "unknown models subcommand %q", args[0])
	}
}

// modelsDir is $MNEMO_MODELS, else the user cache directory's mnemo/models.
func (m *Main) modelsDir() (string, error) { return models.Dir(m.Getenv) }

func (c *ModelsCommand) fetch(ctx context.Context, args []string) error {
	fs := c.flags("models fetch", "NAME...")
	registry := fs.String("registry", "", "npm registry or mirror address (default $"+models.EnvRegistry+", else "+models.DefaultRegistry+")")
	force := fs.Bool("force", false, "download and reinstall even when installed")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := c.checkGiven(fs, "--registry", "a registry address (left out, $"+models.EnvRegistry+", else the default)"); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return c.usagef(fs, "models fetch needs a model name (known: %s)", catalogNames())
	}
	for _, name := range fs.Args() {
		// Every name before any download: a name not in the catalog is a
		// value error (exit 2), and nothing is fetched for the others.
		if _, err := models.Lookup(name); err != nil {
			return c.valuef(fs, "unknown model %q (known: %s)", name, catalogNames())
		}
	}
	dir, err := c.modelsDir()
	if err != nil {
		return err
	}
	reg := *registry
	if reg == "" {
		reg = c.Getenv(models.EnvRegistry)
	}
	f := &models.Fetcher{Dir: dir, Registry: reg, Force: *force}
	for _, name := range fs.Args() {
		in, err := f.Fetch(ctx, name)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "%s: %s@%s (%d files, %.1f MB, %s) in %s\n",
			in.Name, in.Package, in.Version, in.Files, float64(in.Bytes)/1e6, in.License, in.Dir)
	}
	return nil
}

func (c *ModelsCommand) list(args []string) error {
	fs := c.flags("models list", "")
	asJSON := fs.Bool("json", false, "print the installed models as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return c.noArgs(fs, "")
	}
	dir, err := c.modelsDir()
	if err != nil {
		return err
	}
	list, err := models.List(dir)
	if err != nil {
		return err
	}
	if *asJSON {
		type row struct {
			models.Installed
			Dir string `json:"dir"`
		}
		rows := make([]row, 0, len(list))
		for _, in := range list {
			rows = append(rows, row{in, in.Dir})
		}
		return c.printJSON(rows)
	}
	installed := make(map[string]models.Installed)
	for _, in := range list {
		installed[in.Name] = in
	}
	tw := tabwriter.NewWriter(c.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATUS\tPACKAGE\tSIZE\tINSTALLED\tDESCRIPTION")
	for _, s := range models.Catalog() {
		in, ok := installed[s.Name]
		switch {
		case !ok:
			fmt.Fprintf(tw, "%s\tabsent\t%s@%s\t-\t-\t%s\n", s.Name, s.Package, s.Version, s.Description)
		case !models.IsInstalled(dir, s.Name):
			fmt.Fprintf(tw, "%s\tstale\t%s@%s\t%.1f MB\t%s\t%s\n", s.Name, in.Package, in.Version, float64(in.Bytes)/1e6, in.InstalledAt.Format("2006-01-02 15:04"), s.Description)
		default:
			fmt.Fprintf(tw, "%s\tinstalled\t%s@%s\t%.1f MB\t%s\t%s\n", s.Name, in.Package, in.Version, float64(in.Bytes)/1e6, in.InstalledAt.Format("2006-01-02 15:04"), s.Description)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "\nmodels directory: %s (set $%s to change; fetch with 'mnemo models fetch NAME')\n", dir, models.EnvDir)
	return nil
}

func catalogNames() string {
	s := ""
	for i, c := range models.Catalog() {
		if i > 0 {
			s += ", "
		}
		s += c.Name
	}
	return s
}
