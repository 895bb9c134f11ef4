package server_test

import (
	"context"
	"crypto/hmac"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
	"github.com/folio-cms/folio/server/notify"
)

// hookReceiver is a --notify receiver on 127.0.0.1: it checks the
// signature and hands every event to the test.
type hookReceiver struct {
	*httptest.Server
	events chan notify.Event
	mu     sync.Mutex
	block  chan struct{} // when set, requests wait for it to close
	errs   []string
	fail   int // answer this many requests with 500 first
	tries  int
}

func newHookReceiver(t testing.TB, secret string) *hookReceiver {
	h := &hookReceiver{events: make(chan notify.Event, 100)}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.tries++
		block, fail := h.block, h.fail > 0
		if fail {
			h.fail--
		}
		h.mu.Unlock()
		if block != nil {
			select {
			case <-block:
			case <-r.Context().Done():
				return
			}
		}
		body, _ := io.ReadAll(r.Body)
		if !hmac.Equal([]byte(r.Header.Get("X-Folio-Signature")), []byte(notify.Sign(secret, body))) {
			h.mu.Lock()
			h.errs = append(h.errs, "bad signature: "+r.Header.Get("X-Folio-Signature"))
			h.mu.Unlock()
		}
		if fail {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		var ev notify.Event
		if err := json.Unmarshal(body, &ev); err != nil {
			h.mu.Lock()
			h.errs = append(h.errs, "body: "+string(body))
			h.mu.Unlock()
		}
		select {
		case h.events <- ev:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() {
		h.Close()
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, e := range h.errs {
			t.Error(e)
		}
	})
	return h
}

func (h *hookReceiver) next(t testing.TB) notify.Event {
	t.Helper()
	select {
	case ev := <-h.events:
		return ev
	case <-time.After(30 * time.Second):
		t.Fatal("no notification arrived")
	}
	return notify.Event{}
}

// withNotify wires a notifier to the URLs the way cmd/folio does.
func withNotify(t testing.TB, secret string, urls ...string) serverOpt {
	return func(ec *engine.Config, sc *server.Config) {
		ctx, cancel := context.WithCancel(context.Background())
		n, err := notify.New(ctx, notify.Config{URLs: urls, Secret: secret, Backoff: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cancel(); n.Wait() })
		ec.OnSwap = server.NotifySwaps(n)
		ec.OnSchedule = server.NotifySchedule(n)
		sc.Notifier = n
	}
}

func TestNotifyContentSwap(t *testing.T) {
	t.Parallel()
	const secret = "hook-secret"
	rc := newHookReceiver(t, secret)
	repo := newRepo(t, siteFiles)
	ts := startServer(t, repo.bare, withNotify(t, secret, rc.URL))
	key := ts.reader(t)
	idOf := func(path string) string {
		t.Helper()
		id, _ := get(t, ts.URL+path, key).json(t)["id"].(string)
		if id == "" {
			t.Fatalf("%s: no id", path)
		}
		return id
	}
	about, alpha, beta, home := idOf("/api/v1/pages/about"), idOf("/api/v1/content/posts/a"), idOf("/api/v1/content/posts/b"), idOf("/api/v1/pages/home")

	// One push: an item edited, a page removed, an item of a new type
	// added, the globals changed. Beta, home and the products are not
	// touched and must not be named.
	commit := repo.commit("edit", map[string]string{
		"content/posts/a.md": "---\ntitle: Alpha 2\ndate: 2026-01-10\n---\nNew.\n",
		"pages/about.md":     "",
		"content/news/x.md":  "---\ntitle: X\ndate: 2026-01-01\n---\nx\n",
		"globals.yaml":       strings.Replace(siteFiles["globals.yaml"], "Acme", "Acme Inc", 1),
	})
	ev := rc.next(t)
	news := idOf("/api/v1/content/news/x")
	want := []string{"globals", "item:news/" + news, "item:posts/" + alpha, "page:" + about, "pages", "type:news", "type:posts"}
	slices.Sort(want)
	if ev.Event != "content" || ev.Commit != commit || !slices.Equal(ev.Keys, want) {
		t.Fatalf("event %+v\nwant commit %s keys %v", ev, commit, want)
	}
	if _, err := time.Parse(time.RFC3339, ev.At); err != nil {
		t.Errorf("at %q: %v", ev.At, err)
	}
	for _, k := range ev.Keys {
		if strings.Contains(k, beta) || strings.Contains(k, home) || strings.Contains(k, "products") {
			t.Errorf("unchanged resource named: %s", k)
		}
	}

	// A commit that changes no served file sends nothing: the next event
	// is the one of the commit after it, and it names only what changed.
	repo.commit("docs", map[string]string{"README.txt": "not content\n"})
	eventually(t, "the docs commit to be served", func() bool { return ts.Engine.Status().Commit == git(t, repo.work, "rev-parse", "HEAD") })
	// folio.yaml: a type's options change its list (the default sort).
	commit = repo.commit("sort", map[string]string{"folio.yaml": "types:\n  posts:\n    public: true\n    sortable: [rating]\n  products:\n    defaultSort: -title\n"})
	if ev := rc.next(t); ev.Commit != commit || !slices.Equal(ev.Keys, []string{"type:products"}) {
		t.Fatalf("after a config change: %+v", ev)
	}
	// imagePresets: every raster item's JSON lists its preset URLs, so
	// the media JSON responses are named; the content is untouched.
	commit = repo.commit("presets", map[string]string{"folio.yaml": "imagePresets:\n  card: {w: 400, h: 300}\ntypes:\n  posts:\n    public: true\n    sortable: [rating]\n  products:\n    defaultSort: -title\n"})
	if ev := rc.next(t); ev.Commit != commit || !slices.Equal(ev.Keys, []string{"presets"}) {
		t.Fatalf("after a preset change: %+v", ev)
	}
}

// TestNotifyMediaAndSlowReceiver: every media write through the API is
// notified, a receiver that does not answer holds up no request and no
// reload, and a 500 is retried.
func TestNotifyMediaAndSlowReceiver(t *testing.T) {
	const secret = "m"
	rc := newHookReceiver(t, secret)
	rc.block = make(chan struct{})
	rc.fail = 1
	repo := newRepo(t, mediaSite)
	root := t.TempDir()
	ts := startServer(t, repo.bare, withLocalMedia(t, root), withNotify(t, secret, rc.URL))
	all := ts.key(t, "all", server.ScopeMediaRead, server.ScopeMediaWrite, server.ScopeMediaDelete, server.ScopeContentRead)
	ms := &mediaServer{testServer: ts, root: root, all: all, read: all, write: all, del: all}

	// While the receiver answers nothing, writes and a reload go on.
	ms.createFolder(t, "/blog")
	it := ms.uploadOK(t, fieldPart("folder", "/blog"), filePart("a.png", pngBytes(t, 20, 10)))[0]
	if r := ms.patch(t, all, it.ID, `{"alt":"A"}`); r.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	if r := do(t, http.MethodDelete, ts.URL+"/api/v1/media/"+it.ID, all, nil); r.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	if r := do(t, http.MethodDelete, ts.URL+"/api/v1/media/folders?path=/blog", all, nil); r.Status != http.StatusOK {
		t.Fatalf("delete folder: %d %s", r.Status, r.Body)
	}
	// Refused writes are not notified.
	wantError(t, do(t, http.MethodDelete, ts.URL+"/api/v1/media/"+it.ID, all, nil), 404, "NOT_FOUND")
	repo.commit("home", map[string]string{"pages/home.md": "---\ntitle: Home 2\nisHomepage: true\n---\nHi.\n"})
	eventually(t, "the push to be served", func() bool {
		return get(t, ts.URL+"/api/v1/pages/home", all).json(t)["title"] == "Home 2"
	})
	close(rc.block)

	item := "media:" + it.ID
	want := [][]string{{"media"}, {"media", item}, {"media", item}, {"media", item}, {"media"}}
	var got [][]string
	content := 0
	for len(got) < len(want) || content == 0 {
		ev := rc.next(t)
		switch ev.Event {
		case "media":
			if ev.Commit != "" {
				t.Errorf("media event with commit %q", ev.Commit)
			}
			got = append(got, ev.Keys)
		case "content":
			content++
		default:
			t.Fatalf("event %+v", ev)
		}
	}
	if !slices.EqualFunc(got, want, slices.Equal[[]string]) {
		t.Fatalf("media events %v, want %v", got, want)
	}
	rc.mu.Lock()
	tries := rc.tries
	rc.mu.Unlock()
	if tries != len(want)+content+1 {
		t.Errorf("%d requests for %d events: the 500 was not retried once", tries, len(want)+content)
	}
}
