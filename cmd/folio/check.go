package main

import (
	"context"
	"flag"
	"fmt"
	"io"

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
	branch := fs.String("branch", "main", "the branch to check")
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
		problems := engine.CheckFiles(files, cfg.MediaExists)
		for _, p := range problems {
			fmt.Fprintln(stdout, p.String())
		}
		if len(problems) > 0 {
			fmt.Fprintf(stderr, "%d problem(s) in %s\n", len(problems), *worktree)
			return exitError(1)
		}
		fmt.Fprintf(stderr, "no problems in %s\n", *worktree)
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
		fmt.Fprintf(stderr, "%d problem(s) in %s at %.12s\n", len(st.Problems), *branch, st.Commit)
		return exitError(1)
	}
	fmt.Fprintf(stderr, "no problems in %s at %.12s\n", *branch, st.Commit)
	return nil
}
