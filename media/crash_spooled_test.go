package media_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
)

// The steps of an upload of one file (createSpooled) that
// TestCrash_SpooledUploadKilled kills a process at, in their order (the
// first two, and the three after spool-sync, in any order among them),
// and whether the upload is committed once the step is done.
var spooledSteps = []struct {
	name      string
	committed bool
	maybe     bool // the step runs beside the commit: either
}{
	{"claimed", false, false},        // the claim of the key created, its name not synced
	{"sidecar-bytes", false, false},  // the sidecar's bytes written, not synced
	{"spool-sync", false, false},     // SyncSpooled begins: the first round's syncs begin
	{"claims-synced", false, false},  // the claim's name synced
	{"sidecar-synced", false, false}, // the sidecar's bytes synced
	{"spool-synced", false, false},   // SyncSpooled done: the spooled file durable
	{"linked", false, false},         // the key linked to the spooled file
	{"committed", true, false},       // the sidecar created and its folder synced
	{"logged", true, false},          // the log entry written
	{"folder-synced", true, true},    // the key's folder synced (beside the commit)
	{"returned", true, false},        // Create returned (the spooled name removed)
}

const (
	crashRootEnv = "FOLIO_TEST_SPOOLED_CRASH_ROOT"
	crashStepEnv = "FOLIO_TEST_SPOOLED_CRASH_STEP"
)

// killer is the child's library: the real local storage and state,
// killing the process (SIGKILL) at its step once armed. It tells the
// parent the key it linked first ("key <key>" on stdout).
type killer struct {
	step  string
	armed atomic.Bool
}

func (k *killer) at(step string) {
	if k.armed.Load() && step == k.step {
		os.Stdout.Sync()
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
}

type killingStorage struct {
	*local.Storage
	k *killer
}

func (s *killingStorage) SyncSpooled(f *os.File) error {
	s.k.at("spool-sync")
	err := s.Storage.SyncSpooled(f)
	s.k.at("spool-synced")
	return err
}

func (s *killingStorage) LinkSpooled(ctx context.Context, key string, f *os.File) error {
	err := s.Storage.LinkSpooled(ctx, key, f)
	if s.k.armed.Load() {
		fmt.Printf("key %s\n", key)
	}
	s.k.at("linked")
	return err
}

func (s *killingStorage) SyncFolders(ctx context.Context, keys []string) error {
	err := s.Storage.SyncFolders(ctx, keys)
	s.k.at("folder-synced")
	return err
}

type killingState struct {
	*local.State
	k *killer
}

func (s *killingState) CreateNameSynced(ctx context.Context, key string, data []byte) (string, error) {
	tag, err := s.State.CreateNameSynced(ctx, key, data)
	if strings.HasPrefix(key, "claims/") {
		s.k.at("claimed")
	}
	return tag, err
}

func (s *killingState) CreateUnsynced(ctx context.Context, key string, data []byte) (string, error) {
	tag, err := s.State.CreateUnsynced(ctx, key, data)
	if strings.HasPrefix(key, "log/") {
		s.k.at("logged")
	}
	if strings.HasPrefix(key, "claims/") {
		s.k.at("claimed")
	}
	return tag, err
}

func (s *killingState) SyncNames(ctx context.Context, keys []string) error {
	err := s.State.SyncNames(ctx, keys)
	s.k.at("claims-synced")
	return err
}

func (s *killingState) PrepareCreate(data []byte) (media.PreparedObject, error) {
	po, err := s.State.PrepareCreate(data)
	s.k.at("sidecar-bytes")
	return po, err
}

func (s *killingState) PrepareCreateUnsynced(data []byte) (media.PreparedObject, error) {
	po, err := s.State.PrepareCreateUnsynced(data)
	s.k.at("sidecar-bytes")
	return po, err
}

func (s *killingState) SyncPrepared(po media.PreparedObject) error {
	err := s.State.SyncPrepared(po)
	s.k.at("sidecar-synced")
	return err
}

func (s *killingState) CreatePrepared(ctx context.Context, key string, po media.PreparedObject) (string, error) {
	tag, err := s.State.CreatePrepared(ctx, key, po)
	s.k.at("committed")
	return tag, err
}

// spooledCrashChild is the child process: it uploads kept.pdf, then
// doomed.pdf, killing itself at its step of the second.
func spooledCrashChild(root, step string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(3)
	}
	k := &killer{step: step}
	store, err := local.New(root)
	if err != nil {
		fail(err)
	}
	st, err := local.OpenState(filepath.Join(root, local.StateDir))
	if err != nil {
		fail(err)
	}
	l, err := media.Open(context.Background(), media.Config{Root: root,
		Storage: &killingStorage{Storage: store, k: k}, State: &killingState{State: st, k: k}})
	if err != nil {
		fail(err)
	}
	kept, err := l.Create(context.Background(), media.UploadInput{Filename: "kept.pdf", Body: bytes.NewReader(pdfBytes)})
	if err != nil {
		fail(err)
	}
	fmt.Printf("kept %s\n", kept.ID)
	k.armed.Store(true)
	if _, err := l.Create(context.Background(), media.UploadInput{Filename: "doomed.pdf", Body: bytes.NewReader(pdfBytes)}); err != nil {
		fail(err)
	}
	k.at("returned")
	fail(fmt.Errorf("step %q never reached", step))
}

// An upload of one file killed at each step of its write (a real
// process, SIGKILL), and with a crash of the machine after each (what
// was not yet synced lost: the key's name, which only the sync of its
// folder makes durable): after the next start the library holds the
// whole upload or nothing of it. Never an item without its original, an
// original or a claim no item holds, a spooled file left over; the
// upload is there exactly when its sidecar was created, and new uploads
// get names and ids of their own.
func TestCrash_SpooledUploadKilled(t *testing.T) {
	if root := os.Getenv(crashRootEnv); root != "" {
		spooledCrashChild(root, os.Getenv(crashStepEnv))
		return
	}
	if testing.Short() {
		t.Skip("runs a process per step and kills it")
	}
	for _, step := range spooledSteps {
		for _, power := range []bool{false, true} {
			name := step.name
			if power {
				name += "/machine"
			}
			t.Run(name, func(t *testing.T) {
				e := newEnv(t)
				cmd := exec.Command(os.Args[0], "-test.run=^TestCrash_SpooledUploadKilled$")
				cmd.Env = append(os.Environ(), crashRootEnv+"="+e.root, crashStepEnv+"="+step.name)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
					t.Fatalf("child not killed: %v\n%s%s", err, out, stderr.Bytes())
				}
				var keptID, doomedKey string
				sc := bufio.NewScanner(bytes.NewReader(out))
				for sc.Scan() {
					if v, ok := strings.CutPrefix(sc.Text(), "kept "); ok {
						keptID = v
					}
					if v, ok := strings.CutPrefix(sc.Text(), "key "); ok {
						doomedKey = v
					}
				}
				committed := step.committed
				if power && doomedKey != "" && !committed {
					// Not committed: nothing of it was synced but its
					// claim; the key's name may or may not be there.
					os.Remove(keyPath(e.root, doomedKey))
				}
				if power && doomedKey != "" && committed && step.name != "folder-synced" && step.name != "returned" {
					// The key's folder may not be synced yet.
					if err := os.Remove(keyPath(e.root, doomedKey)); err != nil {
						t.Fatal(err)
					}
				}
				l := e.open(t)
				checkWhole(t, e, l)
				if _, ok := l.Get(keptID); !ok || keptID == "" {
					t.Errorf("the upload answered before the kill (%q) is gone", keptID)
				}
				var doomed []*media.Item
				for _, it := range listAll(l) {
					if strings.HasPrefix(path.Base(it.Key), "doomed") {
						doomed = append(doomed, it)
					}
				}
				if !step.maybe && (committed && len(doomed) != 1 || !committed && len(doomed) != 0) || len(doomed) > 1 {
					t.Errorf("after a kill at %s: %d doomed items, want committed=%v", step.name, len(doomed), committed)
				}
				// New uploads get names and ids of their own.
				a := mustCreate(t, l, "doomed.pdf", pdfBytes, "")
				b := mustCreate(t, l, "kept.pdf", pdfBytes, "")
				for _, it := range []*media.Item{a, b} {
					if it.ID == keptID || slices.ContainsFunc(doomed, func(d *media.Item) bool { return d.ID == it.ID || d.Key == it.Key }) {
						t.Errorf("new upload %s (%s) reuses an id or a key", it.ID, it.Key)
					}
				}
				e.close(t, l)
				checkWhole(t, e, e.open(t))
			})
		}
	}
}

// checkWhole checks the library on e's root against its disk: every
// item has its original with its bytes, every file of the media root
// and every claim is an item's, every sidecar is an item, and no
// temporary file is left.
func checkWhole(t *testing.T, e *env, l *media.Library) {
	t.Helper()
	items := listAll(l)
	held := map[string]string{}
	for _, it := range items {
		held[it.Key] = it.ID
		data, err := os.ReadFile(keyPath(e.root, it.Key))
		if err != nil || int64(len(data)) != it.Size {
			t.Errorf("item %s: original %s: %d bytes, %v; want %d", it.ID, it.Key, len(data), err, it.Size)
		}
		if !fileExists(t, stateItem(e.root, it.ID)) {
			t.Errorf("item %s has no sidecar", it.ID)
		}
	}
	err := filepath.WalkDir(e.root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(e.root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			return nil
		}
		switch {
		case strings.HasPrefix(rel, ".tmp/"), strings.HasPrefix(rel, local.StateDir+"/.tmp/"):
			t.Errorf("temporary file left: %s", rel)
		case strings.HasPrefix(rel, local.StateDir+"/claims/"):
			if _, ok := held[strings.TrimPrefix(rel, local.StateDir+"/claims/")]; !ok {
				t.Errorf("claim no item holds: %s", rel)
			}
		case strings.HasPrefix(rel, local.StateDir+"/items/"):
			id := strings.TrimSuffix(path.Base(rel), ".yaml")
			if _, ok := l.Get(id); !ok {
				t.Errorf("sidecar of no item: %s", rel)
			}
		case strings.HasPrefix(rel, local.StateDir+"/"), rel == ".migrated-to-bucket":
		default:
			if _, ok := held[rel]; !ok {
				t.Errorf("file no item holds: %s", rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func listAll(l *media.Library) []*media.Item {
	items, _ := l.List(media.Query{})
	return items
}
