package server

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// A running server sees keys created and revoked by another process (the
// CLI) within a second, without a lock on the request path.
func TestKeyStore_SeesFileChanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.yaml")
	served, err := OpenKeys(path)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := OpenKeys(path)
	if err != nil {
		t.Fatal(err)
	}
	// The server checks the file (missing) on its first request...
	served.Verify("nothing")
	a, err := cli.Create("a", []string{ScopeContentRead})
	if err != nil {
		t.Fatal(err)
	}
	// ...not again within a second...
	if _, ok := served.Verify(a); ok {
		t.Fatal("a key created less than a second after the last check was seen: the check is not rate-limited")
	}
	// ...and looks again once a second has passed.
	served.checked.Store(0)
	if k, ok := served.Verify(a); !ok || k.Name != "a" {
		t.Fatalf("created key not seen after a second: %v %v", k, ok)
	}

	b, err := cli.Create("b", []string{ScopeMediaRead})
	if err != nil {
		t.Fatal(err)
	}
	if err := cli.Revoke("a"); err != nil {
		t.Fatal(err)
	}
	served.checked.Store(0)
	if _, ok := served.Verify(a); ok {
		t.Fatal("revoked key still accepted")
	}
	if k, ok := served.Verify(b); !ok || !k.Has(ScopeMediaRead) {
		t.Fatalf("second key: %v %v", k, ok)
	}

	// A removed file leaves no keys; written again, its keys count again.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	served.checked.Store(0)
	if _, ok := served.Verify(b); ok {
		t.Fatal("key of a removed file accepted")
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	served.checked.Store(0)
	if _, ok := served.Verify(b); !ok {
		t.Fatal("key of the file written back refused")
	}
}

// Requests verify while the file changes under them (run with -race).
func TestKeyStore_VerifyWhileChanging(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.yaml")
	cli, err := OpenKeys(path)
	if err != nil {
		t.Fatal(err)
	}
	keep, err := cli.Create("keep", []string{ScopeContentRead})
	if err != nil {
		t.Fatal(err)
	}
	served, err := OpenKeys(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				served.checked.Store(0) // every request checks the file
				if _, ok := served.Verify(keep); !ok {
					t.Error("a key never revoked was refused")
					return
				}
			}
		})
	}
	for range 20 {
		if _, err := cli.Create("tmp", []string{ScopeMediaRead}); err != nil {
			t.Fatal(err)
		}
		if err := cli.Revoke("tmp"); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
}
