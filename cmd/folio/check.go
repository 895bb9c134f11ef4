package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

// runCheck loads the site as serve would and prints each problem as
// path:line: message, then each sign that folio misread the site
// (content.Misreads) as "misread: path: message [kind]". It exits 1
// when there is any problem, or any misread whose kind --allow does not
// accept. With --media (or --storage) it opens that media library
// read-only and also reports media references to items it does not
// hold.
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	site := fs.String("site", "", "the content repository: a local path or a remote URL")
	worktree := fs.String("worktree", "", "check the files of this folder as they are on disk, committed or not (instead of --site)")
	root := fs.String("root", "", "the folder of the repository (or of --worktree) the site is in; default: the root: of the repository's folio.yaml, else its root")
	branch := fs.String("branch", "", "the branch to check (default: the repository's default branch, its HEAD)")
	cacheDir := fs.String("cache-dir", defaultCacheDir(), "where remote clones and the parsed-content cache live")
	allowFlag := fs.String("allow", "", "comma-separated kinds of signs that folio misread the site to accept ("+strings.Join(content.MisreadKinds(), ", ")+"; all: every kind); check fails on the others")
	var ga gitAuthFlags
	ga.register(fs)
	var mf mediaFlags
	mf.register(fs)
	mf.readOnly = true
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if (*site == "") == (*worktree == "") {
		return fmt.Errorf("check: give --site or --worktree")
	}
	allow, err := parseAllow(*allowFlag)
	if err != nil {
		return err
	}
	if _, err := content.CleanRoot(*root); err != nil {
		return fmt.Errorf("--root: %w", err)
	}
	gitAuth, err := ga.options()
	if err != nil {
		return err
	}
	cfg := engine.Config{Site: *site, Root: *root, GitAuth: gitAuth, Branch: *branch, CacheDir: *cacheDir}
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
		files, siteRoot, err := content.ReadSite(*worktree, *root)
		if err != nil {
			return err
		}
		site, problems := engine.CheckSite(files, cfg.MediaExists)
		paths, err := listPaths(filepath.Join(*worktree, filepath.FromSlash(siteRoot)))
		if err != nil {
			return err
		}
		top := filepath.Join(*worktree, filepath.FromSlash(siteRoot))
		read := func(p string) ([]byte, bool) {
			b, err := os.ReadFile(filepath.Join(top, filepath.FromSlash(p)))
			return b, err == nil
		}
		mis := content.Misreads(content.MisreadInput{Paths: paths, Files: files, Site: site, Read: read})
		problems = withLinkProblems(problems, site, files)
		return report(stdout, stderr, filepath.Join(*worktree, filepath.FromSlash(siteRoot)), site, problems, mis, allow)
	}
	eng, err := engine.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer eng.Close()
	st := eng.Status()
	paths, files, err := eng.CheckInput(ctx)
	if err != nil {
		return err
	}
	pub := eng.Published().Site
	mis := content.Misreads(content.MisreadInput{Paths: paths, Files: files, Site: pub, Read: gitReader(ctx, eng.GitDir(), st.Commit, eng.SiteRoot())})
	where := fmt.Sprintf("%s at %.12s", st.Branch, st.Commit)
	if r := eng.SiteRoot(); r != "" {
		where = r + "/ of " + where
	}
	return report(stdout, stderr, where, pub, withLinkProblems(st.Problems, pub, files), mis, allow)
}

// gitReader reads a file of the site (a path below root) at commit of
// the repository at gitDir, with the git CLI: the files folio reads no
// content from (an Astro site's src/content.config.ts), for the misread
// checks. Files over content.MaxFileSize are not read.
func gitReader(ctx context.Context, gitDir, commit, root string) func(p string) ([]byte, bool) {
	return func(p string) ([]byte, bool) {
		spec := commit + ":" + path.Join(root, p)
		size, err := exec.CommandContext(ctx, "git", "--git-dir", gitDir, "cat-file", "-s", spec).Output()
		if err != nil {
			return nil, false
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(size)), 10, 64); err != nil || n > content.MaxFileSize {
			return nil, false
		}
		out, err := exec.CommandContext(ctx, "git", "--git-dir", gitDir, "cat-file", "blob", spec).Output()
		return out, err == nil
	}
}

// withLinkProblems adds to problems the ref shortcodes of site's bodies
// that name no document (content.LinkProblems), in path and line order.
func withLinkProblems(problems []content.Problem, site *content.Site, files []content.File) []content.Problem {
	if site == nil {
		return problems
	}
	lp := content.LinkProblems(site, files)
	if len(lp) == 0 {
		return problems
	}
	out := append(slices.Clone(problems), lp...)
	slices.SortStableFunc(out, func(a, b content.Problem) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
	})
	return out
}

// report prints the problems and the misreads and says what was found:
// exit status 1 for any problem (a warning, whose file is served as the
// site's generator would, is printed as "warning: …" and does not fail)
// and any misread allow does not accept.
func report(stdout, stderr io.Writer, where string, site *content.Site, problems []content.Problem, mis []content.Misread, allow map[string]bool) error {
	warnings := 0
	for _, p := range problems {
		if p.Level == content.LevelWarn {
			warnings++
			fmt.Fprintln(stdout, "warning: "+p.String())
			continue
		}
		fmt.Fprintln(stdout, p.String())
	}
	errs := len(problems) - warnings
	failing := 0
	for _, m := range mis {
		fmt.Fprintln(stdout, "misread: "+m.String())
		if !allow[m.Kind] && !allow["all"] {
			failing++
		}
	}
	var said []string
	if errs > 0 {
		said = append(said, fmt.Sprintf("%d problem(s)", errs))
	}
	if warnings > 0 {
		said = append(said, fmt.Sprintf("%d warning(s)", warnings))
	}
	if len(mis) > 0 {
		s := fmt.Sprintf("%d sign(s) that folio misread or skipped part of the site", len(mis))
		if failing < len(mis) {
			s += fmt.Sprintf(" (%d allowed)", len(mis)-failing)
		}
		said = append(said, s)
	}
	if len(said) == 0 {
		fmt.Fprintf(stderr, "no problems in %s: %s\n", where, siteSummary(site))
		return nil
	}
	fmt.Fprintf(stderr, "%s in %s: %s\n", strings.Join(said, " and "), where, siteSummary(site))
	if failing > 0 {
		fmt.Fprintf(stderr, "check accepts a kind of misread with --allow KIND (%s)\n", strings.Join(misreadKindsOf(mis), ","))
	}
	if errs > 0 || failing > 0 {
		return exitError(1)
	}
	return nil
}

// misreadKindsOf are the kinds of mis, in order, once each.
func misreadKindsOf(mis []content.Misread) []string {
	var out []string
	for _, m := range mis {
		if !slices.Contains(out, m.Kind) {
			out = append(out, m.Kind)
		}
	}
	return out
}

// parseAllow reads --allow: kinds of content.MisreadKinds, or all.
func parseAllow(v string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, k := range splitList(v) {
		if k != "all" && !slices.Contains(content.MisreadKinds(), k) {
			return nil, fmt.Errorf("--allow: %q is not a kind of misread (%s, or all)", k, strings.Join(content.MisreadKinds(), ", "))
		}
		out[k] = true
	}
	return out, nil
}

// listPaths lists every file below dir as a slash-separated path, in
// order; folders starting with "." (.git) are not entered.
func listPaths(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	return out, err
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
