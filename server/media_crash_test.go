package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/folio-cms/folio/fixtures/testkit"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
	"github.com/folio-cms/folio/server"
	"go.yaml.in/yaml/v3"
)

// folioProc is `folio serve` running as a subprocess.
type folioProc struct {
	cmd    *exec.Cmd
	url    string
	stderr *bytes.Buffer
	done   chan struct{}
}

func startFolio(t *testing.T, bin string, args ...string) *folioProc {
	t.Helper()
	p := &folioProc{stderr: &bytes.Buffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--rate-ip", "0", "--rate-key", "0", "--poll", "0", "--log-level", "error"}, args...)...)
	p.cmd.Stderr = p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "folio serving "); ok {
				addr <- u
			}
		}
		close(addr)
	}()
	go func() { p.cmd.Wait(); close(p.done) }()
	u, ok := <-addr
	if !ok {
		<-p.done
		t.Fatalf("folio serve did not start: %s", p.stderr)
	}
	p.url = u
	if pu, err := url.Parse(u); err == nil {
		registerFolio(t, pu.Host)
	}
	return p
}

func (p *folioProc) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// try is a request that may fail (the server may be killed under it).
func try(client *http.Client, method, url, key, ct string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, b, err
}

// TestMediaCrash runs folio serve as a process, uploads, patches and
// deletes while killing it with SIGKILL at random moments, restarts it,
// and after the last restart checks the media root: every listed item has
// its original and derivatives, every sidecar (in <root>/.state) parses
// and is whole, no file lies unclaimed (the start after a kill sweeps
// what the cut-off writes left), and every acknowledged write survived.
func TestMediaCrash(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds folio and kills it")
	}
	bin := testkit.BuildFolio(t)
	site := newRepo(t, mediaSite).bare
	dir := t.TempDir()
	root := filepath.Join(dir, "media")
	keysPath := filepath.Join(dir, "keys.yaml")
	keys, err := server.OpenKeys(keysPath)
	if err != nil {
		t.Fatal(err)
	}
	key, err := keys.Create("crash", []string{server.ScopeMediaRead, server.ScopeMediaWrite, server.ScopeMediaDelete})
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--site", site, "--keys", keysPath, "--media", root, "--cache-dir", filepath.Join(dir, "cache")}

	// Images a little wider than the smallest derivatives (150, 400): an
	// upload still writes an original, derivatives and a sidecar for a
	// kill to cut, at a fraction of the CPU of photo-sized ones; imgs[1]
	// goes into every upload.
	imgs := [][]byte{pngBytes(t, 450, 250), jpegBytes(t, 420, 240), gifBytes(t, 200, 100), fixture(t, "alpine-lake.jpg"), fixture(t, "gear-care-guide.pdf")}
	var (
		mu        sync.Mutex
		acked     = map[string]bool{} // uploads answered 201
		tried     = map[string]bool{} // ids a delete was sent for
		ackedAlt  = map[string]int{}  // id → last acknowledged alt counter
		counter   atomic.Int64
		uploads   atomic.Int64
		patches   atomic.Int64
		deletes   atomic.Int64
		ackedList []string
		// acks has a value after each acknowledged write: the kill
		// waits for a number of them, not for a time.
		acks = make(chan struct{}, 1)
	)
	ack := func() {
		select {
		case acks <- struct{}{}:
		default:
		}
	}
	done := func() int64 { return uploads.Load() + patches.Load() + deletes.Load() }
	client := apiClient(t)
	client.Timeout = 30 * time.Second
	const rounds = 5
	for round := range rounds {
		p := startFolio(t, bin, args...)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		// Uploaders.
		for g := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					body, ct := multipartBody(filePart(fmt.Sprintf("r%d-g%d-%d.png", round, g, i), imgs[(i+g)%len(imgs)]),
						filePart("same.jpg", imgs[1]))
					st, b, err := try(client, http.MethodPost, p.url+"/api/v1/media", key, ct, body)
					if err != nil || st != http.StatusCreated {
						continue
					}
					var res uploadRes
					if json.Unmarshal(b, &res) != nil {
						continue
					}
					mu.Lock()
					for _, it := range res.Data {
						acked[it.ID] = true
						ackedList = append(ackedList, it.ID)
					}
					mu.Unlock()
					uploads.Add(1)
					ack()
				}
			}()
		}
		// One patcher, one deleter, over the acknowledged uploads.
		wg.Add(2)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				if len(ackedList) == 0 {
					mu.Unlock()
					time.Sleep(5 * time.Millisecond)
					continue
				}
				id := ackedList[rand.IntN(len(ackedList))]
				mu.Unlock()
				n := int(counter.Add(1))
				st, _, err := try(client, http.MethodPatch, p.url+"/api/v1/media/"+id, key, "application/json",
					[]byte(fmt.Sprintf(`{"alt":"alt %d","focalX":%d}`, n, n%101)))
				if err == nil && st == http.StatusOK {
					mu.Lock()
					ackedAlt[id] = n
					mu.Unlock()
					patches.Add(1)
					ack()
				}
			}
		}()
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				if len(ackedList) < 4 {
					mu.Unlock()
					time.Sleep(5 * time.Millisecond)
					continue
				}
				id := ackedList[rand.IntN(len(ackedList))]
				tried[id] = true
				mu.Unlock()
				if st, _, err := try(client, http.MethodDelete, p.url+"/api/v1/media/"+id, key, "", nil); err == nil && st == http.StatusOK {
					deletes.Add(1)
					ack()
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
		// Kill after 1 to 20 more acknowledged writes: a random moment of
		// the work (the other requests are under way), however slow the
		// machine.
		target, deadline := done()+1+int64(rand.IntN(20)), time.After(2*time.Minute)
		for done() < target {
			select {
			case <-acks:
			case <-deadline:
				p.kill()
				close(stop)
				wg.Wait()
				t.Fatalf("round %d: %d writes acknowledged in 2 minutes, want %d", round, done(), target)
			}
		}
		p.kill()
		close(stop)
		wg.Wait()
	}
	t.Logf("acknowledged before kills: %d upload requests, %d patches, %d deletes", uploads.Load(), patches.Load(), deletes.Load())

	// Final restart, then the checks.
	p := startFolio(t, bin, args...)
	defer p.kill()
	listed := map[string]mItem{}
	for off := 0; ; off += 100 {
		st, b, err := try(client, http.MethodGet, fmt.Sprintf("%s/api/v1/media?limit=100&offset=%d", p.url, off), key, "", nil)
		if err != nil || st != http.StatusOK {
			t.Fatalf("list: %v %d %s", err, st, b)
		}
		var l listRes
		if err := json.Unmarshal(b, &l); err != nil {
			t.Fatal(err)
		}
		for _, it := range l.Data {
			listed[it.ID] = it
		}
		if off+100 >= l.Total {
			break
		}
	}
	if len(listed) == 0 {
		t.Fatal("nothing survived: the test did not exercise anything")
	}
	inRoot := func(url string) string {
		return filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(url, "/uploads/")))
	}
	for id, it := range listed {
		fi, err := os.Stat(inRoot(it.URL))
		if err != nil {
			t.Errorf("listed %s: original missing: %v", id, err)
		} else if fi.Size() != it.Size {
			t.Errorf("listed %s: original of %d bytes, item says %d", id, fi.Size(), it.Size)
		}
		for _, s := range it.Sizes {
			if _, err := os.Stat(inRoot(s.URL)); err != nil {
				t.Errorf("listed %s: derivative missing: %v", id, err)
			}
		}
		if st, _, err := try(client, http.MethodGet, p.url+it.URL, "", "", nil); err != nil || st != http.StatusOK {
			t.Errorf("listed %s: %s not served: %d %v", id, it.URL, st, err)
		}
	}
	// Every acknowledged upload that no delete was sent for is there, with
	// at least its last acknowledged alt.
	for id := range acked {
		if tried[id] {
			continue
		}
		it, ok := listed[id]
		if !ok {
			t.Errorf("acknowledged upload %s lost", id)
			continue
		}
		if n, ok := ackedAlt[id]; ok {
			var got int
			if _, err := fmt.Sscanf(it.Alt, "alt %d", &got); err != nil || got < n {
				t.Errorf("%s: alt %q, last acknowledged %d", id, it.Alt, n)
			}
		}
	}
	// The disk: every sidecar in the state parses and is whole and
	// listed; every file is claimed by a sidecar.
	claimed := map[string]bool{}
	sidecars := 0
	for _, f := range filesUnder(t, root) {
		id, ok := strings.CutPrefix(f, local.StateDir+"/items/")
		if !ok {
			continue
		}
		id = strings.TrimSuffix(id, ".yaml")
		sidecars++
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		var it media.Item
		if err := yaml.Unmarshal(b, &it); err != nil {
			t.Errorf("sidecar %s does not parse: %v", f, err)
			continue
		}
		if it.ID != id || it.Key == "" || it.MimeType == "" || it.Size <= 0 || it.CreatedAt.IsZero() || it.Version < 1 {
			t.Errorf("sidecar %s is half-written: %+v", f, it)
		}
		if _, ok := listed[it.ID]; !ok {
			t.Errorf("sidecar %s (item %s) is not listed", f, it.ID)
		}
		claimed[it.Key] = true
		for _, s := range it.Sizes {
			claimed[s.Key] = true
		}
	}
	if sidecars != len(listed) {
		t.Errorf("%d sidecars, %d listed items", sidecars, len(listed))
	}
	var leftovers []string
	for _, f := range filesUnder(t, root) {
		switch {
		case strings.HasPrefix(f, local.StateDir+"/") || isBookkeeping(f):
		case strings.HasPrefix(f, ".tmp/"):
			leftovers = append(leftovers, f)
		case !claimed[f]:
			t.Errorf("orphan file %s: no sidecar claims it", f)
		}
	}
	if len(leftovers) > 0 {
		t.Errorf("temp files left after open: %v", leftovers)
	}
	t.Logf("after %d kills: %d items listed, %d files on disk", rounds, len(listed), len(filesUnder(t, root)))
}
