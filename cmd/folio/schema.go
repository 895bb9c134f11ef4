package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/schema"
	"github.com/folio-cms/folio/engine/gitsource"
)

// runSchema is `folio schema infer`: it prints a content model (a
// folio.yaml types:, pages: and globals: block) inferred from the
// documents of a site, committed (--site) or on disk (--worktree).
func runSchema(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "infer" {
		fmt.Fprint(stderr, "usage: folio schema infer --site PATH_OR_URL [--branch NAME] | --worktree DIR\n")
		return exitError(2)
	}
	fs := flag.NewFlagSet("schema infer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	site := fs.String("site", "", "the content repository: a local path or a remote URL")
	worktree := fs.String("worktree", "", "infer from the files of this folder as they are on disk (instead of --site)")
	root := fs.String("root", "", "the folder of the repository (or of --worktree) the site is in; default: the root: of the repository's folio.yaml, else its root")
	branch := fs.String("branch", "", "the branch to read (default: the repository's default branch, its HEAD)")
	cacheDir := fs.String("cache-dir", defaultCacheDir(), "where remote clones and the parsed-content cache live")
	var ga gitAuthFlags
	ga.register(fs)
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if (*site == "") == (*worktree == "") {
		return fmt.Errorf("schema infer: give --site or --worktree")
	}
	var files []content.File
	if *worktree != "" {
		var err error
		if files, _, err = content.ReadSite(*worktree, *root); err != nil {
			return err
		}
	} else {
		gitAuth, err := ga.options()
		if err != nil {
			return err
		}
		src, err := gitsource.OpenSource(ctx, gitsource.SourceConfig{Site: *site, CacheDir: *cacheDir, Root: *root, GitAuth: gitAuth})
		if err != nil {
			return err
		}
		defer src.Close()
		if *branch == "" {
			*branch = src.DefaultBranch(ctx)
		}
		commit, err := src.Resolve(*branch)
		if err != nil {
			return fmt.Errorf("schema infer: %w", err)
		}
		tree, err := src.Load(ctx, commit)
		if err != nil {
			return err
		}
		files = tree.Files.Slice()
	}
	site2, _ := content.Assemble(files)
	out, err := schema.Infer(site2, files)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, "# Inferred by folio schema infer: merge into folio.yaml (keep each type's other options).\n")
	_, err = stdout.Write(out)
	return err
}
