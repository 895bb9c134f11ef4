package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

// runCheck loads the site as serve would and prints each problem as
// path:line: message. It exits 1 when there is any. With --media (or
// --storage) it opens that media library read-only and also reports
// media references to items it does not hold.
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	site := fs.String("site", "", "the content repository: a local path or a remote URL")
	worktree := fs.String("worktree", "", "check the files of this folder as they are on disk, committed or not (instead of --site)")
	branch := fs.String("branch", "", "the branch to check (default: the repository's default branch, its HEAD)")
	cacheDir := fs.String("cache-dir", defaultCacheDir(), "where remote clones and the parsed-content cache live")
	var mf mediaFlags
	mf.register(fs)
	mf.readOnly = true
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if (*site == "") == (*worktree == "") {
		return fmt.Errorf("check: give --site or --worktree")
	}
	cfg := engine.Config{Site: *site, Branch: *branch, CacheDir: *cacheDir}
	withMedia := false
	fs.Visit(func(f *flag.Flag) { withMedia = withMedia || f.Name == "media" || f.Name == "storage" })
	if withMedia {
		logger, _ := newLogger(stderr, "warn", "json")
		m, err := mf.open(ctx, logger)
		if err != nil {
			return err
		}
		defer m.Close()
		cfg.MediaBases = server.MediaBases(m.Library.Storage())
		cfg.MediaExists = func(r content.Ref) bool {
			if r.MediaID != "" {
				_, ok := m.Library.Get(r.MediaID)
				return ok
			}
			_, ok := m.Library.ByKey(r.MediaKey)
			return ok
		}
	}
	if *worktree != "" {
		files, err := content.ReadDir(*worktree)
		if err != nil {
			return err
		}
		site, problems := engine.CheckSite(files, cfg.MediaExists)
		for _, p := range problems {
			fmt.Fprintln(stdout, p.String())
		}
		if len(problems) > 0 {
			fmt.Fprintf(stderr, "%d problem(s) in %s\n", len(problems), *worktree)
			return exitError(1)
		}
		fmt.Fprintf(stderr, "no problems in %s: %s\n", *worktree, siteSummary(site))
		return nil
	}
	eng, err := engine.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer eng.Close()
	st := eng.Status()
	for _, p := range st.Problems {
		fmt.Fprintln(stdout, p.String())
	}
	if len(st.Problems) > 0 {
		fmt.Fprintf(stderr, "%d problem(s) in %s at %.12s\n", len(st.Problems), st.Branch, st.Commit)
		return exitError(1)
	}
	fmt.Fprintf(stderr, "no problems in %s at %.12s: %s\n", st.Branch, st.Commit, siteSummary(eng.Published().Site))
	return nil
}

// siteSummary says what a site holds: "2 pages, 14 items of 2 types
// (authors, posts), globals, locales en, fr". An empty site says where
// folio looks, since a site folio finds nothing in is most often one
// whose content lies elsewhere (a Hugo site in a subfolder).
func siteSummary(site *content.Site) string {
	items := 0
	types := make([]string, 0, len(site.Items))
	for typ, list := range site.Items {
		items += len(list)
		types = append(types, typ)
	}
	if len(site.Pages) == 0 && items == 0 && site.Globals == nil {
		return "the site is empty: folio reads pages/, content/<type>/ and globals.yaml at the repository's root, " +
			"and the folders that folio.yaml's locales or a Hugo configuration name (docs/content.md)"
	}
	slices.Sort(types)
	s := fmt.Sprintf("%s, %s of %s", count(len(site.Pages), "page"), count(items, "item"), count(len(types), "type"))
	if len(types) > 0 {
		s += " (" + strings.Join(types, ", ") + ")"
	}
	if site.Globals != nil {
		s += ", globals"
	}
	if site.I18n != nil {
		codes := make([]string, 0, len(site.Locales))
		for c := range site.Locales {
			codes = append(codes, c)
		}
		slices.Sort(codes)
		s += ", locales " + strings.Join(codes, ", ")
	}
	return s
}

// count is "1 page", "3 pages".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
