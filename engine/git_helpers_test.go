package engine

import "github.com/folio-cms/folio/engine/internal/gittest"

// The git helpers of package gittest, under the names these tests use.
type srcTestRepo = gittest.Repo

var (
	srcGitEnv          = gittest.Env
	srcGit             = gittest.Git
	srcGitAt           = gittest.GitAt
	newSrcBareSite     = gittest.NewBareSite
	newSrcWorkTreeSite = gittest.NewWorkTreeSite
	srcT0              = gittest.T0
	srcDay             = gittest.Day
	benchSite          = gittest.BenchSite
)
