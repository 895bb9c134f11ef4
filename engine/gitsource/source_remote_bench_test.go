package gitsource

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
)

// BenchmarkRemoteFirstFetch compares the first fetch of a remote site (a
// file:// remote of 2,000 documents over 20 commits) by the git CLI,
// as Source fetches since one transport serves fetch and push, with
// go-git's fetch, which it used before: the start of a box with an empty
// cache directory (OpenSource: the fetch and opening the clone). The two
// run in turn, three times.
func BenchmarkRemoteFirstFetch(b *testing.B) {
	r := newSrcBareSite(b)
	for c := 0; c < 20; c++ {
		files := map[string]string{}
		for i := 0; i < 100; i++ {
			files[fmt.Sprintf("content/posts/p%d-%d.md", c, i)] = fmt.Sprintf("---\ntitle: Post %d %d\n---\n%s\n", c, i, longBody(c*100+i))
		}
		r.Commit(time.Unix(1e9+int64(c)*60, 0), files)
	}
	r.Push(false)
	url := "file://" + r.Bare
	for round := 0; round < 3; round++ {
		firstFetches(b, url)
	}
}

func firstFetches(b *testing.B, url string) {
	b.Run("git-cli", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			s, err := OpenSource(context.Background(), SourceConfig{Site: url, CacheDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
	b.Run("go-git", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			dir := filepath.Join(b.TempDir(), "clone")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			repo, err := git.PlainInit(dir, true)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := repo.CreateRemote(&gitconfig.RemoteConfig{Name: "origin", URLs: []string{url}, Fetch: []gitconfig.RefSpec{remoteFetchSpec, remoteTagSpec}}); err != nil {
				b.Fatal(err)
			}
			if err := repo.FetchContext(context.Background(), &git.FetchOptions{RemoteName: "origin", RefSpecs: []gitconfig.RefSpec{remoteFetchSpec, remoteTagSpec}, Tags: git.NoTags, Force: true, Prune: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func longBody(n int) string {
	s := ""
	for i := 0; i < 20; i++ {
		s += fmt.Sprintf("Paragraph %d of document %d, with some words to compress. ", i, n)
	}
	return s
}

// BenchmarkRemoteFetchUpToDate compares a fetch that finds nothing new
// (each poll of a remote site) by the git CLI and by go-git.
func BenchmarkRemoteFetchUpToDate(b *testing.B) {
	r := newSrcBareSite(b)
	r.Commit(time.Unix(1e9, 0), map[string]string{"content/posts/a.md": "---\ntitle: A\n---\nA\n"})
	r.Push(false)
	url := "file://" + r.Bare
	s, err := OpenSource(context.Background(), SourceConfig{Site: url, CacheDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	repo, err := git.PlainOpen(s.GitDir())
	if err != nil {
		b.Fatal(err)
	}
	for round := 0; round < 3; round++ {
		b.Run("git-cli", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := s.Fetch(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("go-git", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				err := repo.FetchContext(context.Background(), &git.FetchOptions{RemoteName: "origin", RefSpecs: []gitconfig.RefSpec{remoteFetchSpec, remoteTagSpec}, Tags: git.NoTags, Force: true, Prune: true})
				if err != nil && err != git.NoErrAlreadyUpToDate {
					b.Fatal(err)
				}
			}
		})
	}
}
