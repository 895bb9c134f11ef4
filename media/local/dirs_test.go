package local

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// Callers that sync one directory at once share fsyncs (group commit):
// each still gets a sync that started after its call, and every change
// made before it is on disk.
func TestOpenDirs_SyncShared(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	dirs := newOpenDirs(root)
	defer dirs.close()
	const n = 64
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			<-start
			f, err := root.Create(filepath.Join("d", strconv.Itoa(i)))
			if err == nil {
				err = f.Close()
			}
			if err == nil {
				err = dirs.fsyncDir("d")
			}
			errs[i] = err
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("caller %d: %v", i, err)
		}
	}
	od, err := dirs.get("d")
	if err != nil {
		t.Fatal(err)
	}
	od.syncMu.Lock()
	started, syncing := od.started, od.syncing
	od.syncMu.Unlock()
	if syncing || started == 0 || started >= n {
		t.Errorf("%d callers made %d fsyncs (syncing %v); want them shared", n, started, syncing)
	}
	t.Logf("%d callers, %d fsyncs", n, started)
}
