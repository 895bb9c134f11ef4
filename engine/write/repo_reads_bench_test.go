package write_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/folio-cms/folio/engine/write"
)

// BenchmarkRepoReads measures what a Decap page reads: a branch head, a
// folder's files (200 entries) and their blobs, one entry.
func BenchmarkRepoReads(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "site.git")
	run := func(stdin []byte, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+os.TempDir())
		if stdin != nil {
			cmd.Stdin = bytes.NewReader(stdin)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
		return string(bytes.TrimSpace(out))
	}
	run(nil, "init", "-q", "--bare", dir)
	var in bytes.Buffer
	fmt.Fprintf(&in, "commit refs/heads/main\ncommitter B <b@x.invalid> 1700000000 +0000\ndata 2\nc\n")
	for i := range 2000 {
		body := fmt.Sprintf("---\ntitle: Post %d\n---\n%s\n", i, bytes.Repeat([]byte("word "), 400))
		p := fmt.Sprintf("content/t%d/post-%04d.md", i%10, i)
		fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", p, len(body), body)
	}
	run(in.Bytes(), "--git-dir="+dir, "fast-import", "--quiet")
	run(nil, "--git-dir="+dir, "repack", "-a", "-d", "-q")
	repo := write.OpenRepo(dir)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		head, err := repo.Head(ctx, "main")
		if err != nil || head == "" {
			b.Fatal(head, err)
		}
		files, err := repo.Files(ctx, head, "content/t3", 1)
		if err != nil || len(files) != 200 {
			b.Fatal(len(files), err)
		}
		ids := make([]string, len(files))
		for i, f := range files {
			ids[i] = f.Blob
		}
		if _, err := repo.Blobs(ctx, ids); err != nil {
			b.Fatal(err)
		}
		if _, _, err := repo.Read(ctx, head, files[7].Path); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRepoBranchReads measures what Decap's editorial workflow
// reads of an entry's branch: the list of cms/ branches (20, beside a
// main of 2,000 files and 50 commits), then one branch's changes since
// it left main and its commit time.
func BenchmarkRepoBranchReads(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "site.git")
	run := func(stdin []byte, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+os.TempDir())
		if stdin != nil {
			cmd.Stdin = bytes.NewReader(stdin)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
		return string(bytes.TrimSpace(out))
	}
	run(nil, "init", "-q", "--bare", dir)
	var in bytes.Buffer
	fmt.Fprintf(&in, "commit refs/heads/main\nmark :1\ncommitter B <b@x.invalid> 1700000000 +0000\ndata 2\nc\n")
	for i := range 2000 {
		body := fmt.Sprintf("---\ntitle: Post %d\n---\n%s\n", i, bytes.Repeat([]byte("word "), 400))
		fmt.Fprintf(&in, "M 100644 inline content/t%d/post-%04d.md\ndata %d\n%s\n", i%10, i, len(body), body)
	}
	for i := 2; i <= 50; i++ {
		fmt.Fprintf(&in, "commit refs/heads/main\nmark :%d\ncommitter B <b@x.invalid> %d +0000\ndata 2\nc\nfrom :%d\n", i, 1700000000+i*60, i-1)
		fmt.Fprintf(&in, "M 100644 inline content/t%d/post-%04d.md\ndata 6\nedit%d\n\n", i%10, i, i%10)
	}
	for i := range 20 {
		fmt.Fprintf(&in, "commit refs/heads/cms/posts/e%02d\ncommitter B <b@x.invalid> %d +0000\ndata 2\ne\nfrom :%d\n", i, 1700000000+3000+i*60, 30+i)
		fmt.Fprintf(&in, "M 100644 inline content/t3/entry-%02d.md\ndata 6\nentry\n\n", i)
	}
	run(in.Bytes(), "--git-dir="+dir, "fast-import", "--quiet")
	run(nil, "--git-dir="+dir, "repack", "-a", "-d", "-q")
	repo := write.OpenRepo(dir)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		bs, err := repo.Branches(ctx, "cms/")
		if err != nil || len(bs) != 20 {
			b.Fatal(bs, err)
		}
		head, err := repo.Head(ctx, bs[7])
		if err != nil {
			b.Fatal(err)
		}
		cs, err := repo.Changes(ctx, "main", head)
		if err != nil || len(cs) != 1 {
			b.Fatal(cs, err)
		}
		if _, err := repo.CommitTime(ctx, head); err != nil {
			b.Fatal(err)
		}
	}
}
