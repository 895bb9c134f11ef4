package engine

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine/internal/gittest"
)

// A push of a path over 4096 bytes (see gitsource's
// TestSource_DeepTreeBounded): its Load fails, the status's last error
// says why and the engine serves what it served; the next push, that
// removes it, reloads.
func TestEngine_DeepTreePushRefused(t *testing.T) {
	r := newSrcBareSite(t)
	cfg := Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC) }}
	r.Commit(srcDay(0), map[string]string{"content/posts/a.md": gittest.Post("A")})
	r.Push(false)
	e, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	before := viewDump(t, e, false)
	good := e.Published().Commit
	// No work tree holds the path: fast-import writes it to the site.
	deep := "content/posts/" + strings.Repeat("a/", 2100) + "x.md" // 4218 bytes: over the limit
	fastImportOnto(t, r.Bare, fmt.Sprintf("M 100644 inline %s\ndata 4\nxyz\n", deep))
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if le := e.Status().LastError; le == nil || !strings.Contains(le.Message, "longer than 4096 bytes") {
		t.Fatalf("Status after a push of a path of %d bytes: last error %+v; want one that says the path is too long", len(deep), le)
	}
	if e.Published().Commit != good || viewDump(t, e, false) != before {
		t.Fatal("the engine does not serve what it served before the push it could not load")
	}
	cold, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: t.TempDir(), Now: cfg.Now})
	t.Logf("cold open: %v", err)
	if cold != nil {
		t.Logf("cold: %v", cold.Status().Problems)
		cold.Close()
	}
	fastImportOnto(t, r.Bare, "D content/posts/a\n")
	if err := e.Reload(context.Background()); err != nil || e.Published().Commit == good {
		t.Fatalf("Reload after the long path is removed: %v", err)
	}
}

// fastImportOnto commits cmds (fast-import's file commands) onto main of
// the bare repository site.
func fastImportOnto(t *testing.T, site, cmds string) {
	t.Helper()
	in := "commit refs/heads/main\ncommitter A <a@example.com> 1700000000 +0000\ndata 2\nm\nfrom refs/heads/main^0\n" + cmds
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Env, cmd.Stdin = site, gittest.Env(gittest.T0), strings.NewReader(in)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v: %s", err, out)
	}
}
