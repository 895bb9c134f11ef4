package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/folio-cms/folio/fixtures/testkit"
)

// updateConfigDoc rewrites the generated table of docs/configuration.md:
// go test ./cmd/folio -run TestConfigurationDoc -update
var updateConfigDoc = flag.Bool("update", false, "rewrite the generated flag table of docs/configuration.md")

// docCommands are the commands whose flags docs/configuration.md lists,
// in the order of its table.
var docCommands = [][]string{
	{"serve"}, {"check"}, {"keys", "create"}, {"keys", "list"}, {"keys", "revoke"},
	{"media", "import"}, {"media", "regenerate"}, {"media", "migrate"}, {"media", "sign"},
}

const (
	configBegin = "<!-- flags:begin: generated from cmd/folio's flag definitions by `go test ./cmd/folio -run TestConfigurationDoc -update`; do not edit by hand -->"
	configEnd   = "<!-- flags:end -->"
)

// docFlag is one flag as `folio CMD -h` prints it.
type docFlag struct {
	name, typ, usage, def string
}

// helpFlags runs `folio <cmd> -h` and reads the flags it prints.
func helpFlags(t *testing.T, cmd []string) []docFlag {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), append(append([]string{}, cmd...), "-h"), &stdout, &stderr)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("folio %s -h: %v (want flag.ErrHelp)\n%s", strings.Join(cmd, " "), err, stderr.String())
	}
	flags := parseDefaults(stderr.String())
	if len(flags) == 0 {
		t.Fatalf("folio %s -h printed no flags:\n%s", strings.Join(cmd, " "), stderr.String())
	}
	return flags
}

var defaultSuffix = regexp.MustCompile(`^(.*) \(default (.*)\)$`)

// parseDefaults reads flag.PrintDefaults output: "  -name type" then the
// usage on lines indented with "    \t", ending in " (default X)" when the
// default is not the zero value.
func parseDefaults(out string) []docFlag {
	var flags []docFlag
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "  -"):
			fields := strings.Fields(strings.TrimPrefix(line, "  -"))
			f := docFlag{name: fields[0]}
			if len(fields) > 1 {
				f.typ = fields[1]
				if tab := strings.Index(line, "\t"); tab >= 0 { // a one-letter flag's usage shares the line
					f.typ = ""
					f.usage = strings.TrimSpace(line[tab+1:])
				}
			}
			flags = append(flags, f)
		case strings.HasPrefix(line, "    \t") && len(flags) > 0:
			f := &flags[len(flags)-1]
			f.usage = strings.TrimSpace(f.usage + " " + strings.TrimSpace(line))
		}
	}
	for i := range flags {
		if m := defaultSuffix.FindStringSubmatch(flags[i].usage); m != nil {
			flags[i].usage, flags[i].def = m[1], strings.Trim(m[2], `"`)
		}
		if flags[i].typ == "" {
			flags[i].typ = "bool"
			if flags[i].def == "" {
				flags[i].def = "false"
			}
		}
	}
	return flags
}

// configTable renders the flags of every command as one Markdown table:
// one row per flag, with the commands that take it (a flag whose default
// or meaning differs between commands gets a row per meaning).
func configTable(t *testing.T) string {
	type row struct {
		docFlag
		cmds []string
	}
	// Defaults that depend on the machine are written as what they
	// depend on: the user's cache directory and the number of Ps.
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no user cache directory to check --cache-dir's default against: %v", err)
	}
	machine := map[string][2]string{
		"transform-concurrency": {strconv.Itoa(runtime.GOMAXPROCS(0)), "GOMAXPROCS (the number of CPUs)"},
		"cache-dir":             {filepath.Join(cache, "folio"), "$XDG_CACHE_HOME/folio (~/.cache/folio)"},
	}
	var rows []*row
	index := map[docFlag]*row{}
	for _, cmd := range docCommands {
		for _, f := range helpFlags(t, cmd) {
			if d, ok := machine[f.name]; ok {
				if f.def != d[0] {
					t.Fatalf("--%s: default %q, want the machine's %q", f.name, f.def, d[0])
				}
				f.def = d[1]
			}
			r := index[f]
			if r == nil {
				r = &row{docFlag: f}
				index[f] = r
				rows = append(rows, r)
			}
			r.cmds = append(r.cmds, strings.Join(cmd, " "))
		}
	}
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	var b strings.Builder
	b.WriteString("| flag | environment | commands | default | what it does |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		env := "FOLIO_" + strings.ToUpper(strings.ReplaceAll(r.name, "-", "_"))
		flagCell := "`--" + r.name + "`"
		if r.typ != "" && r.typ != "bool" {
			flagCell = "`--" + r.name + " " + r.typ + "`"
		}
		def := ""
		if r.def != "" {
			def = "`" + r.def + "`"
		}
		b.WriteString("| " + flagCell + " | `" + env + "` | " + cell(strings.Join(r.cmds, ", ")) + " | " + cell(def) + " | " + cell(r.usage) + " |\n")
	}
	return b.String()
}

// TestConfigurationDoc fails when docs/configuration.md's flag table is not
// what the commands' flag definitions give: a flag added, removed, renamed,
// or with another default or usage text than the table says.
func TestConfigurationDoc(t *testing.T) {
	path := filepath.Join(testkit.ModuleRoot(t), "docs", "configuration.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	begin, end := strings.Index(text, configBegin), strings.Index(text, configEnd)
	if begin < 0 || end < begin {
		t.Fatalf("%s: no generated table between %q and %q", path, configBegin, configEnd)
	}
	want := configTable(t)
	got := text[begin+len(configBegin)+1 : end]
	if *updateConfigDoc {
		text = text[:begin+len(configBegin)] + "\n" + want + text[end:]
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != want {
		gotLines := map[string]bool{}
		for _, l := range strings.Split(got, "\n") {
			gotLines[l] = true
		}
		var missing []string
		for _, l := range strings.Split(want, "\n") {
			if !gotLines[l] {
				missing = append(missing, l)
			}
		}
		t.Fatalf("docs/configuration.md's flag table is stale; run\n\tgo test ./cmd/folio -run TestConfigurationDoc -update\nrows missing or different:\n%s", strings.Join(missing, "\n"))
	}
}

// TestParseDefaults checks the reader of flag.PrintDefaults against a
// FlagSet of every kind of flag it meets.
func TestParseDefaults(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	var buf bytes.Buffer
	fs.SetOutput(&buf)
	fs.String("addr", "127.0.0.1:8080", "listen `address`")
	fs.Bool("read-only", false, "serve reads only")
	fs.Bool("search", true, "keep the index")
	fs.Int("n", 3, "count")
	fs.String("keys", "", "keys file\nsecond line")
	fs.PrintDefaults()
	got := parseDefaults(buf.String())
	want := []docFlag{
		{name: "addr", typ: "address", usage: "listen address", def: "127.0.0.1:8080"},
		{name: "keys", typ: "string", usage: "keys file second line"},
		{name: "n", typ: "int", usage: "count", def: "3"},
		{name: "read-only", typ: "bool", usage: "serve reads only", def: "false"},
		{name: "search", typ: "bool", usage: "keep the index", def: "true"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d flags %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("flag %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}
