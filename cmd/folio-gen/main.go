// Command folio-gen writes deterministic test data for benchmarks: a site
// repository of N content files (a Git repository, optionally with a bare
// clone) and a local media library of M items. The same flags and seed
// always give the same files and the same commit.
//
//	folio-gen -out DIR -files 10000 -media 100000 -seed 1 -bare
//
// writes DIR/site (work tree), DIR/site.git (bare clone, with -bare) and
// DIR/media, then DIR/.folio-gen.json, whose presence tells a caller that
// the data is complete.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Manifest is written last to DIR/.folio-gen.json. It records what was
// generated and a few names that a benchmark needs to address (a page, a
// published post, media ids and search words), so the benchmark does not
// have to re-derive them.
type Manifest struct {
	// Version is the generator's (Version): data of an older one is
	// generated again.
	Version int    `json:"version"`
	Files   int    `json:"files"`
	Media   int    `json:"media"`
	Seed    uint64 `json:"seed"`
	Bare    bool   `json:"bare"`
	// Pages and Posts are slugs of published (non-draft) documents.
	Pages []string `json:"pages,omitempty"`
	Posts []string `json:"posts,omitempty"`
	// Types lists the content types written.
	Types []string `json:"types,omitempty"`
	// MediaIDs is a sample of media item ids; SearchWords are words that
	// occur in filenames or alt texts.
	MediaIDs    []string `json:"mediaIds,omitempty"`
	SearchWords []string `json:"searchWords,omitempty"`
	SiteBytes   int64    `json:"siteBytes,omitempty"`
	// Locales are the site's locales with -locales (the first is the
	// default): every document is written once per locale, folder per
	// locale (content/<locale>/<type>/..., pages/<locale>/...).
	Locales []string `json:"locales,omitempty"`
	// Model is -model: folio.yaml declares 10 fields per type
	// (modelFields), committed on top of the site without a model,
	// NoModelCommit (which declares no field at all).
	Model         bool   `json:"model,omitempty"`
	Commit        string `json:"commit,omitempty"`
	NoModelCommit string `json:"noModelCommit,omitempty"`
	// Shard is -shard: the items of posts and products are written in
	// numbered folders of at most Shard files each
	// (content/posts/0012/<name>.md); 0 writes each type's items in one
	// folder, the layout every figure before -shard was measured on.
	Shard int `json:"shard,omitempty"`
}

// Version is the version of what folio-gen writes: 2 gave posts a
// category and the posts a content model declaring it.
const Version = 2

// ManifestName is the file that marks a complete output directory.
const ManifestName = ".folio-gen.json"

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "folio-gen:", err)
		}
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("folio-gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "output directory (created; must not hold a previous run)")
	files := fs.Int("files", 1000, "content files in the site (pages included); 0 writes no site")
	media := fs.Int("media", 0, "media items in the library; 0 writes no library")
	seed := fs.Uint64("seed", 1, "random seed")
	bare := fs.Bool("bare", false, "also write a bare clone of the site at DIR/site.git")
	model := fs.Bool("model", false, "declare a content model of 10 fields per type (two defaults, a unique field) in folio.yaml, in a second commit on top of the site without one (the manifest's noModelCommit)")
	locales := fs.Int("locales", 0, "write the site in this many locales (en, fr, de, es, it, pt, nl, sv), each document once per locale: -files documents make -files × -locales files; 0 or 1: no locales")
	shard := fs.Int("shard", 0, "write the items of posts and products in numbered folders of at most this many files each (content/posts/0012/<name>.md), as large sites keep their folders small; 0: one folder per type")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("-out is required")
	}
	if *files < 0 || *media < 0 || *shard < 0 {
		return errors.New("-files, -media and -shard must not be negative")
	}
	if _, err := os.Stat(filepath.Join(*out, ManifestName)); err == nil {
		return fmt.Errorf("%s already holds generated data", *out)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	if *locales < 0 || *locales > len(genLocales) {
		return fmt.Errorf("-locales: from 0 to %d", len(genLocales))
	}
	m := Manifest{Version: Version, Files: *files, Media: *media, Seed: *seed, Bare: *bare, Model: *model, Shard: *shard}
	if *locales > 1 {
		m.Locales = genLocales[:*locales]
	}
	if *files > 0 {
		start := time.Now()
		dir := filepath.Join(*out, "site")
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		if err := writeSite(dir, *files, *seed, &m); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "site: %d files, %.1f MB written in %s\n", *files, float64(m.SiteBytes)/1e6, time.Since(start).Round(time.Millisecond))
		start = time.Now()
		cfg := ""
		if *model {
			cfg = config(modelFields, m.Locales)
		}
		commit, base, err := commitSite(dir, cfg)
		if err != nil {
			return err
		}
		m.Commit, m.NoModelCommit = commit, base
		fmt.Fprintf(stdout, "site: committed %s in %s\n", commit, time.Since(start).Round(time.Millisecond))
		if *bare {
			bareDir := filepath.Join(*out, "site.git")
			if err := os.RemoveAll(bareDir); err != nil {
				return err
			}
			if err := git("", "clone", "-q", "--bare", dir, bareDir); err != nil {
				return err
			}
		}
	}
	if *media > 0 {
		start := time.Now()
		dir := filepath.Join(*out, "media")
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		if err := writeMedia(dir, *media, *seed, &m); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "media: %d items written in %s\n", *media, time.Since(start).Round(time.Millisecond))
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(*out, ManifestName), append(data, '\n'), 0o644)
}
