package notify_test

import (
	"context"
	"crypto/hmac"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-cms/folio/server/notify"
)

// receiver is a real HTTP endpoint on 127.0.0.1 that records what it gets.
type receiver struct {
	*httptest.Server
	secret   string
	attempts atomic.Int64
	events   chan notify.Event
	// status answers attempt n (1-based); nil answers 204.
	status func(n int64) int
	// hold, when set, blocks every request until it is closed.
	hold chan struct{}
	mu   sync.Mutex
	bad  []string // signature problems
}

func newReceiver(t *testing.T, secret string, status func(int64) int) *receiver {
	rc := &receiver{secret: secret, events: make(chan notify.Event, 1000), status: status}
	rc.Server = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	n := rc.attempts.Add(1)
	if rc.hold != nil {
		select {
		case <-rc.hold:
		case <-r.Context().Done():
			return
		}
	}
	body, _ := io.ReadAll(r.Body)
	sig := r.Header.Get(notify.SignatureHeader)
	rc.mu.Lock()
	switch {
	case rc.secret == "" && sig != "":
		rc.bad = append(rc.bad, "signature without a secret")
	case rc.secret != "" && !hmac.Equal([]byte(sig), []byte(notify.Sign(rc.secret, body))):
		rc.bad = append(rc.bad, "bad signature "+sig)
	}
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
		rc.bad = append(rc.bad, "method "+r.Method+" type "+r.Header.Get("Content-Type"))
	}
	rc.mu.Unlock()
	code := http.StatusNoContent
	if rc.status != nil {
		code = rc.status(n)
	}
	if code/100 == 2 {
		var ev notify.Event
		if err := json.Unmarshal(body, &ev); err != nil {
			rc.mu.Lock()
			rc.bad = append(rc.bad, "body "+string(body))
			rc.mu.Unlock()
		}
		rc.events <- ev
	}
	w.WriteHeader(code)
}

func (rc *receiver) next(t *testing.T) notify.Event {
	t.Helper()
	select {
	case ev := <-rc.events:
		return ev
	case <-time.After(20 * time.Second):
		t.Fatal("no notification arrived")
	}
	return notify.Event{}
}

func (rc *receiver) check(t *testing.T) {
	t.Helper()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, b := range rc.bad {
		t.Error(b)
	}
}

func start(t *testing.T, cfg notify.Config) (*notify.Notifier, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if cfg.Backoff == 0 {
		cfg.Backoff = 5 * time.Millisecond
	}
	n, err := notify.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); n.Wait() })
	return n, cancel
}

func TestSignedDelivery(t *testing.T) {
	rc := newReceiver(t, "s3cret", nil)
	plain := newReceiver(t, "", nil)
	now := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	n, _ := start(t, notify.Config{URLs: []string{rc.URL, plain.URL}, Secret: "s3cret", Now: func() time.Time { return now }})
	n.Send(notify.Content, "abc123", []string{"type:posts", "item:posts/a", "type:posts"})
	ev := rc.next(t)
	want := notify.Event{Event: "content", Commit: "abc123", Keys: []string{"item:posts/a", "type:posts"}, At: "2026-11-25T03:00:00Z"}
	if ev.Event != want.Event || ev.Commit != want.Commit || !slices.Equal(ev.Keys, want.Keys) || ev.At != want.At {
		t.Fatalf("event %+v, want %+v", ev, want)
	}
	rc.check(t)
	// The second URL gets the same event; the receiver without the
	// secret sees a signature, which it does not check.
	if ev := plain.next(t); !slices.Equal(ev.Keys, want.Keys) {
		t.Fatalf("second URL: %+v", ev)
	}
	// No secret, no signature header; an event without keys is not sent.
	rc2 := newReceiver(t, "", nil)
	n2, _ := start(t, notify.Config{URLs: []string{rc2.URL}})
	n2.Send(notify.Media, "", nil)
	n2.SendFunc(notify.Media, "", func() []string { return []string{"media", "media:x"} })
	if ev := rc2.next(t); ev.Event != "media" || ev.Commit != "" || !slices.Equal(ev.Keys, []string{"media", "media:x"}) {
		t.Fatalf("media event %+v", ev)
	}
	rc2.check(t)
	if got := rc2.attempts.Load(); got != 1 {
		t.Errorf("%d requests, want 1 (no keys, no event)", got)
	}
}

func TestRetries(t *testing.T) {
	// 500, 503 and 429 are retried; the third attempt succeeds.
	rc := newReceiver(t, "", func(n int64) int {
		switch n {
		case 1:
			return http.StatusInternalServerError
		case 2:
			return http.StatusTooManyRequests
		}
		return http.StatusOK
	})
	n, _ := start(t, notify.Config{URLs: []string{rc.URL}})
	n.Send(notify.Media, "", []string{"media"})
	rc.next(t)
	if got := rc.attempts.Load(); got != 3 {
		t.Fatalf("%d attempts, want 3", got)
	}

	// A 400 is not retried: the next event follows the first attempt.
	bad := newReceiver(t, "", func(n int64) int {
		if n == 1 {
			return http.StatusBadRequest
		}
		return http.StatusOK
	})
	n2, _ := start(t, notify.Config{URLs: []string{bad.URL}})
	n2.Send(notify.Media, "", []string{"media:first"})
	n2.Send(notify.Media, "", []string{"media:second"})
	if ev := bad.next(t); !slices.Equal(ev.Keys, []string{"media:second"}) || bad.attempts.Load() != 2 {
		t.Fatalf("after a 400: %+v, %d attempts", ev, bad.attempts.Load())
	}

	// A receiver that always fails is given up after MaxTries.
	down := newReceiver(t, "", func(n int64) int {
		if n <= 3 {
			return http.StatusBadGateway
		}
		return http.StatusOK
	})
	n3, _ := start(t, notify.Config{URLs: []string{down.URL}, MaxTries: 3})
	n3.Send(notify.Media, "", []string{"media:lost"})
	n3.Send(notify.Media, "", []string{"media:next"})
	if ev := down.next(t); !slices.Equal(ev.Keys, []string{"media:next"}) || down.attempts.Load() != 4 {
		t.Fatalf("after giving up: %+v, %d attempts", ev, down.attempts.Load())
	}

	// A network error (nothing listens) is retried too, and never blocks
	// Send.
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	n4, _ := start(t, notify.Config{URLs: []string{url}, MaxTries: 2})
	for i := 0; i < 1000; i++ {
		n4.Send(notify.Media, "", []string{"media"})
	}
}

func TestFullQueueMergesKeys(t *testing.T) {
	rc := newReceiver(t, "", nil)
	rc.hold = make(chan struct{})
	n, _ := start(t, notify.Config{URLs: []string{rc.URL}, QueueSize: 3})
	// The first event is taken at once and held by the receiver; the
	// others fill the queue past its size.
	n.Send(notify.Content, "c0", []string{"k0"})
	for rc.attempts.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	want := []string{"k0"}
	for i := 1; i <= 10; i++ {
		k := "k" + string(rune('0'+i%10)) + string(rune('a'+i))
		want = append(want, k)
		n.Send(notify.Content, "c"+k, []string{k})
	}
	// Events reach the URL's queue through an intake goroutine: wait
	// until the last one is there (intake keeps their order), so that
	// the queue is full before the receiver lets the first one go.
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(n.QueuedKeys(), want[len(want)-1]) {
		if time.Now().After(deadline) {
			t.Fatalf("the last event never reached the queue: %v", n.QueuedKeys())
		}
		time.Sleep(time.Millisecond)
	}
	// Release the receiver and read until the last event's key arrives:
	// merged events keep the later event, so it is always delivered.
	close(rc.hold)
	var got []string
	for !slices.Contains(got, want[len(want)-1]) {
		got = append(got, rc.next(t).Keys...)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("keys delivered %v, want every key %v", got, want)
	}
	if a := rc.attempts.Load(); a > 4 {
		t.Errorf("%d requests for a queue of 3 behind one in flight", a)
	}
}

func TestStopsOnCancel(t *testing.T) {
	rc := newReceiver(t, "", nil)
	rc.hold = make(chan struct{})
	defer close(rc.hold)
	ctx, cancel := context.WithCancel(context.Background())
	n, err := notify.New(ctx, notify.Config{URLs: []string{rc.URL}, Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	n.Send(notify.Media, "", []string{"media"})
	for rc.attempts.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	// Wait returns although the receiver never answers: the request in
	// flight is abandoned with the context, not held for the hour of
	// Timeout.
	waited := make(chan struct{})
	go func() { n.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		t.Fatal("Wait did not return 30s after the context was cancelled")
	}
	// A Notifier whose context is done sends nothing more: no second
	// request reaches the receiver (Wait has returned, so no goroutine of
	// the Notifier is left to make one).
	n.Send(notify.Media, "", []string{"media"})
	n.Wait()
	if a := rc.attempts.Load(); a != 1 {
		t.Errorf("%d requests, want the 1 made before the cancel", a)
	}
}

func TestNoURLs(t *testing.T) {
	n, err := notify.New(context.Background(), notify.Config{})
	if err != nil || n != nil {
		t.Fatalf("%v %v", n, err)
	}
	n.Send(notify.Media, "", []string{"media"}) // a nil Notifier sends nothing
	n.Wait()
	if _, err := notify.New(context.Background(), notify.Config{URLs: []string{"ftp://x"}}); err == nil {
		t.Fatal("ftp URL accepted")
	}
}
