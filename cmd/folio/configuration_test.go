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
	"time"

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

// docDefault is "`--name …`" followed at once by "(default X" or ", default
// X" in the prose of the docs: X is what the docs say the flag defaults to.
var docDefault = regexp.MustCompile("`--([a-z0-9-]+)[^`]*`(?:\\s*\\(|,\\s*)default:?\\s+([^),;]+)")

var (
	docDuration = regexp.MustCompile(`^(\d+(?:\.\d+)?)\s*(ms|s|m|h|min|minutes?|seconds?|hours?)$`)
	docSize     = regexp.MustCompile(`^(\d+)\s*(KiB|MiB|GiB)(?:/s)?$`)
	docNumber   = regexp.MustCompile(`^/?(\d+(?:\.\d+)?)(?:\s*(?:/s|requests/s))?$`)
)

// docValue reads a default as the docs write it: a duration ("2 m",
// "15 minutes", "500 ms"), a size ("16 KiB/s"), a number ("50
// requests/s", "/64"), a bool, or a literal in backquotes. ok is false
// for words (the number of cores, 3/4 of the open-file limit), which
// say what the default depends on.
func docValue(s string) (v string, ok bool) {
	s = strings.TrimSpace(s)
	if lit, found := strings.CutPrefix(s, "`"); found {
		if lit, _, found = strings.Cut(lit, "`"); found {
			return "literal:" + lit, true
		}
	}
	if m := docDuration.FindStringSubmatch(s); m != nil {
		unit := map[string]string{"min": "m", "minute": "m", "minutes": "m", "second": "s", "seconds": "s", "hour": "h", "hours": "h"}[m[2]]
		if unit == "" {
			unit = m[2]
		}
		if d, err := time.ParseDuration(m[1] + unit); err == nil {
			return "duration:" + d.String(), true
		}
	}
	if m := docSize.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		return "number:" + strconv.Itoa(n<<map[string]int{"KiB": 10, "MiB": 20, "GiB": 30}[m[2]]), true
	}
	if m := docNumber.FindStringSubmatch(s); m != nil {
		f, _ := strconv.ParseFloat(m[1], 64)
		return "number:" + strconv.FormatFloat(f, 'g', -1, 64), true
	}
	if s == "true" || s == "false" {
		return "literal:" + s, true
	}
	return "", false
}

// flagValue is a flag's default as -h prints it, in docValue's terms
// for the kind the docs wrote.
func flagValue(def, kind string) string {
	switch kind {
	case "duration":
		if d, err := time.ParseDuration(def); err == nil {
			return "duration:" + d.String()
		}
	case "number":
		if f, err := strconv.ParseFloat(def, 64); err == nil {
			return "number:" + strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	def, _, _ = strings.Cut(def, "; ") // "folio-state/<s3-prefix>; must lie outside …"
	return "literal:" + def
}

// TestDocsFlagDefaults fails when the prose of docs/*.md or README.md
// gives a flag of folio's commands another default than the flag has:
// "`--poll` (default 1m", "`--rate-ip`, default 50 requests/s". The
// generated table of configuration.md is TestConfigurationDoc's.
func TestDocsFlagDefaults(t *testing.T) {
	defaults := map[string]map[string]bool{} // flag name: its defaults, in any command
	for _, cmd := range docCommands {
		for _, f := range helpFlags(t, cmd) {
			if defaults[f.name] == nil {
				defaults[f.name] = map[string]bool{}
			}
			defaults[f.name][f.def] = true
		}
	}
	root := testkit.ModuleRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(root, "README.md"))
	checked := 0
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// Sentences run across lines: read the file as one line, but
		// not the generated table, whose defaults TestConfigurationDoc
		// checks.
		text := string(b)
		if begin, end := strings.Index(text, configBegin), strings.Index(text, configEnd); begin >= 0 && end > begin {
			text = text[:begin] + text[end:]
		}
		text = strings.Join(strings.Fields(text), " ")
		for _, m := range docDefault.FindAllStringSubmatch(text, -1) {
			name, said := m[1], strings.TrimSpace(m[2])
			defs, known := defaults[name]
			want, ok := docValue(said)
			if !known || !ok {
				continue
			}
			checked++
			kind, _, _ := strings.Cut(want, ":")
			match := false
			var have []string
			for def := range defs {
				if flagValue(def, kind) == want {
					match = true
				}
				have = append(have, strconv.Quote(def))
			}
			if !match {
				t.Errorf("%s: --%s (default %s), but the flag's default is %s", filepath.Base(path), name, said, strings.Join(have, " or "))
			}
		}
	}
	// The docs say a dozen or more defaults this way; far fewer would
	// mean the pattern no longer reads them.
	if checked < 12 {
		t.Fatalf("only %d defaults found in the docs' prose: does docDefault still match how they are written?", checked)
	}
	t.Logf("%d defaults read in the docs' prose", checked)
}
