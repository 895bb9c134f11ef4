package server_test

import (
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
	"github.com/folio-cms/folio/server/notify"
)

// TestScheduledPublishOnTheSecond: a post whose publishedAt is ahead
// appears at that instant; the notifier is told its keys then (with an id
// every box derives alike), and public responses served before it are
// cached no longer than the seconds left. The server runs on a clock the
// test moves: the scheduler waits for the instant on it.
func TestScheduledPublishOnTheSecond(t *testing.T) {
	t.Parallel()
	const secret = "s"
	rc := newHookReceiver(t, secret)
	at := time.Now().UTC().Truncate(time.Second).Add(time.Hour)
	clk := newClock(at.Add(-10 * time.Second))
	repo := newRepo(t, map[string]string{
		"folio.yaml":            "types:\n  posts:\n    public: true\n",
		"content/posts/now.md":  "---\ntitle: Now\ndate: 2024-01-01\n---\n",
		"content/posts/soon.md": "---\ntitle: Soon\npublishedAt: " + at.Format(time.RFC3339) + "\n---\n",
	})
	var firedAt atomic.Int64 // the clock's time when the scheduler reported
	ts := startServer(t, repo.bare, withNotify(t, secret, rc.URL), withClock(clk), func(e *engine.Config, _ *server.Config) {
		report := e.OnSchedule
		e.OnSchedule = func(ev engine.ScheduleEvent) { firedAt.Store(clk.Now().UnixNano()); report(ev) }
	})
	commit := git(t, repo.work, "rev-parse", "HEAD")

	r := get(t, ts.URL+"/api/v1/public/collections/posts", "")
	if r.Status != http.StatusOK || strings.Contains(string(r.Body), "Soon") {
		t.Fatalf("before: %d %s", r.Status, r.Body)
	}
	cc := r.Header.Get("Cache-Control")
	maxAge := -1
	for _, part := range strings.Split(cc, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "max-age="); ok {
			maxAge, _ = strconv.Atoi(v)
		}
	}
	if left := at.Sub(clk.Now()); maxAge < 0 || time.Duration(maxAge)*time.Second > left || strings.Contains(cc, "stale-while-revalidate") {
		t.Fatalf("Cache-Control %q with %v left", cc, left)
	}

	// The scheduler waits for the instant, and nothing before it.
	eventually(t, "the scheduler to wait for "+at.Format(time.RFC3339), func() bool { return slices.Contains(clk.timersAt(), at) })
	clk.Set(at.Add(-time.Millisecond))
	if r := get(t, ts.URL+"/api/v1/public/collections/posts", ""); strings.Contains(string(r.Body), "Soon") {
		t.Fatalf("a millisecond before the instant: %s", r.Body)
	}
	clk.Set(at)
	var ev notify.Event
	for {
		ev = rc.next(t)
		if ev.Event == notify.Schedule {
			break
		}
	}
	if fired := time.Unix(0, firedAt.Load()); fired.Before(at) {
		t.Fatalf("the scheduled event came at %v, before its instant %v", fired, at)
	}
	if ev.Commit != commit || ev.ID != notify.EventID(notify.Schedule, commit, at) || ev.At != at.Format(time.RFC3339) {
		t.Fatalf("event %+v, want commit %s at %s", ev, commit, at)
	}
	soon := get(t, ts.URL+"/api/v1/public/collections/posts/soon", "")
	if soon.Status != http.StatusOK {
		t.Fatalf("after: %d %s", soon.Status, soon.Body)
	}
	id := soon.json(t)["id"].(string)
	if want := []string{"item:posts/" + id, "type:posts"}; !slices.Equal(ev.Keys, want) {
		t.Fatalf("keys %v, want %v", ev.Keys, want)
	}
	if cc := soon.Header.Get("Cache-Control"); !strings.HasPrefix(cc, "public, max-age=60") {
		t.Fatalf("after the instant, nothing scheduled: Cache-Control %q", cc)
	}
}

// TestScheduledPublishThroughCache: a caching nginx in front keeps no
// stale list past a scheduled instant (plus a second): responses served
// before it carry a max-age that ends at the instant.
//
// nginx counts max-age on the real clock, so folio's clock runs at the
// real clock's pace too, but the test sets it, once nginx is up, 1.5 to
// 2.5 s before the instant (whole seconds, as publishedAt writes them) however
// long the start took.
func TestScheduledPublishThroughCache(t *testing.T) {
	at := time.Now().UTC().Truncate(time.Second).Add(time.Hour)
	expire := at.Add(2 * time.Second)
	var ahead atomic.Int64 // folio's clock minus the real one
	now := func() time.Time { return time.Now().Add(time.Duration(ahead.Load())).UTC() }
	repo := newRepo(t, map[string]string{
		"folio.yaml":            "types:\n  posts:\n    public: true\n",
		"content/posts/now.md":  "---\ntitle: Now\ndate: 2024-01-01\nexpiresAt: " + expire.Format(time.RFC3339) + "\n---\n",
		"content/posts/soon.md": "---\ntitle: Soon\npublishedAt: " + at.Format(time.RFC3339) + "\n---\n",
	})
	ts := startServer(t, repo.bare, func(e *engine.Config, s *server.Config) { e.Now, s.Now = now, now })
	base, _ := startNginx(t, strings.TrimPrefix(ts.URL, "http://"))
	// A whole number of seconds, so that folio's seconds begin when
	// nginx's do: a max-age folio counts to the instant then ends at the
	// instant on nginx's clock too, not up to a second after it.
	ahead.Store(int64(at.Add(-1500 * time.Millisecond).Sub(time.Now()).Truncate(time.Second)))
	list := func() string {
		t.Helper()
		res, err := http.Get(base + "/api/v1/public/collections/posts")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var b strings.Builder
		if _, err := io.Copy(&b, res.Body); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	sawBefore := false
	for now().Before(expire.Add(2 * time.Second)) {
		now := now()
		body := list()
		hasSoon, hasNow := strings.Contains(body, `"Soon"`), strings.Contains(body, `"Now"`)
		switch {
		case now.Before(at):
			sawBefore = true
			if hasSoon {
				t.Fatalf("%v before the publish instant: the scheduled post is listed", at.Sub(now))
			}
		case now.After(at.Add(time.Second)) && now.Before(expire):
			if !hasSoon {
				t.Fatalf("%v after the publish instant: the cache still serves the old list: %s", now.Sub(at), body)
			}
		case now.After(expire.Add(time.Second)):
			if hasNow {
				t.Fatalf("%v after the expiry: the cache still lists the expired post", now.Sub(expire))
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !sawBefore {
		t.Fatal("the test started too late to see the list before the instant")
	}
}
