// Package notify tells HTTP receivers (a CDN purge bridge, a static-site
// builder) what changed: after a content swap or a media write, it POSTs
// the surrogate keys whose responses changed to every configured URL, in
// the background, with retries. It knows nothing of folio's other packages.
package notify

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Event kinds.
const (
	Content = "content"
	Media   = "media"
	// Schedule: a scheduled publish or expiry took effect.
	Schedule = "schedule"
)

// SignatureHeader carries "sha256=<hex HMAC-SHA256 of the body>" when a
// secret is set.
const SignatureHeader = "X-Folio-Signature"

// Event is the JSON body of one notification.
type Event struct {
	// ID is the same on every box for the same change (content: the
	// commit; schedule: the commit and the instant), so that a receiver
	// fed by several boxes acts once; "" for media.
	ID     string   `json:"id,omitempty"`
	Event  string   `json:"event"`  // "content", "schedule" or "media"
	Commit string   `json:"commit"` // the published commit after a content swap; "" for media
	Keys   []string `json:"keys"`   // the surrogate keys that changed, sorted
	At     string   `json:"at"`     // RFC 3339, when the change happened
	// Locales are the locales whose content changed, sorted (the codes
	// after "@" in Keys); absent for a site without locales.
	Locales []string `json:"locales,omitempty"`
}

// keyLocales are the locales that keys name ("item:posts/x@fr": fr).
func keyLocales(keys []string) []string {
	var out []string
	for _, k := range keys {
		at := strings.LastIndexByte(k, '@')
		if at < 0 || at == len(k)-1 || strings.ContainsAny(k[at+1:], "/:") {
			continue
		}
		if c := k[at+1:]; !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// Config configures a Notifier.
type Config struct {
	URLs   []string
	Secret string // "" sends no signature
	// Timeout bounds one delivery attempt (default 10s).
	Timeout time.Duration
	// QueueSize bounds the events waiting for one URL (default 100). When
	// it is full the oldest is dropped, its keys merged into a later
	// event of the same kind when there is one, so no key is lost.
	QueueSize int
	// MaxTries is how many times one event is sent before it is given up
	// (default 6). Network errors, 5xx and 429 are retried after Backoff,
	// doubling up to MaxBackoff (defaults 1s and 30s); other statuses are not.
	MaxTries   int
	Backoff    time.Duration
	MaxBackoff time.Duration
	Client     *http.Client // default: one that does not follow redirects
	Logger     *slog.Logger
	Now        func() time.Time
}

// Notifier delivers events. Its methods never block and are safe on a nil
// Notifier (which sends nothing).
type Notifier struct {
	cfg     Config
	client  *http.Client
	log     *slog.Logger
	targets []*target

	mu      sync.Mutex
	pending []pending // keys still to compute, in order of the changes
	wake    chan struct{}
	wg      sync.WaitGroup
}

type pending struct {
	event, commit, id string
	at                time.Time
	keys              func() []string
}

// maxPending bounds the changes whose keys are not computed yet.
const maxPending = 64

// ValidURL checks a receiver URL: http or https with a host.
func ValidURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("notify URL %q: want http:// or https:// and a host", s)
	}
	return nil
}

// New starts a Notifier that runs until ctx is done; Wait waits for it to
// stop. With no URLs it returns nil.
func New(ctx context.Context, cfg Config) (*Notifier, error) {
	if len(cfg.URLs) == 0 {
		return nil, nil
	}
	for _, u := range cfg.URLs {
		if err := ValidURL(u); err != nil {
			return nil, err
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 100
	}
	if cfg.MaxTries <= 0 {
		cfg.MaxTries = 6
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = time.Second
	}
	if cfg.MaxBackoff < cfg.Backoff {
		cfg.MaxBackoff = max(30*time.Second, cfg.Backoff)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	n := &Notifier{cfg: cfg, client: cfg.Client, log: cfg.Logger, wake: make(chan struct{}, 1)}
	if n.client == nil {
		n.client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	for _, u := range cfg.URLs {
		t := &target{url: u, wake: make(chan struct{}, 1)}
		n.targets = append(n.targets, t)
		n.wg.Add(1)
		go func() { defer n.wg.Done(); n.deliverLoop(ctx, t) }()
	}
	n.wg.Add(1)
	go func() { defer n.wg.Done(); n.intakeLoop(ctx) }()
	return n, nil
}

// Wait returns once every goroutine of n has stopped (after ctx is done).
func (n *Notifier) Wait() {
	if n != nil {
		n.wg.Wait()
	}
}

// Send queues an event with the given keys; no keys sends nothing.
func (n *Notifier) Send(event, commit string, keys []string) {
	n.SendFunc(event, commit, func() []string { return keys })
}

// SendFunc queues an event whose keys keys computes, later, on the
// Notifier's own goroutine, in the order of the calls: a content swap
// hands over the diff of two snapshots without computing it on the reload
// path. An event whose keys are empty is not sent.
func (n *Notifier) SendFunc(event, commit string, keys func() []string) {
	if n == nil {
		return
	}
	n.mu.Lock()
	if len(n.pending) >= maxPending {
		n.log.Warn("notify: too many changes waiting, dropping the oldest", "event", n.pending[0].event, "commit", n.pending[0].commit)
		n.pending = n.pending[1:]
	}
	id := ""
	if event == Content && commit != "" {
		id = EventID(event, commit, time.Time{})
	}
	n.pending = append(n.pending, pending{event: event, commit: commit, id: id, at: n.cfg.Now(), keys: keys})
	n.mu.Unlock()
	signal(n.wake)
}

// SendScheduled queues the event of a scheduled change of commit that took
// effect at instant at; its id derives from both, so every box sends the
// same one.
func (n *Notifier) SendScheduled(commit string, at time.Time, keys []string) {
	if n == nil {
		return
	}
	n.mu.Lock()
	if len(n.pending) >= maxPending {
		n.pending = n.pending[1:]
	}
	n.pending = append(n.pending, pending{event: Schedule, commit: commit, id: EventID(Schedule, commit, at), at: at,
		keys: func() []string { return keys }})
	n.mu.Unlock()
	signal(n.wake)
}

// EventID is the id of an event: the first 16 bytes of SHA-256 over its
// kind, commit and (for scheduled changes) instant in RFC 3339, in hex.
func EventID(event, commit string, at time.Time) string {
	h := sha256.New()
	h.Write([]byte(event + "\x00" + commit))
	if !at.IsZero() {
		h.Write([]byte("\x00" + at.UTC().Format(time.RFC3339Nano)))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

func (n *Notifier) intakeLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-n.wake:
		}
		for {
			n.mu.Lock()
			if len(n.pending) == 0 {
				n.mu.Unlock()
				break
			}
			p := n.pending[0]
			n.pending = n.pending[1:]
			n.mu.Unlock()
			keys := dedupe(p.keys())
			if len(keys) == 0 {
				continue
			}
			ev := Event{ID: p.id, Event: p.event, Commit: p.commit, Keys: keys, At: p.at.UTC().Format(time.RFC3339), Locales: keyLocales(keys)}
			for _, t := range n.targets {
				t.push(ev, n.cfg.QueueSize, n.log)
			}
		}
	}
}

// dedupe returns keys sorted without duplicates (a copy).
func dedupe(keys []string) []string {
	out := slices.Clone(keys)
	slices.Sort(out)
	return slices.Compact(out)
}

// target is one receiver URL and its queue.
type target struct {
	url   string
	mu    sync.Mutex
	queue []Event
	wake  chan struct{}
}

// push queues ev; when the queue is full the oldest event leaves it, its
// keys merged into the next event of its kind (or, failing that, dropped
// with a log line).
func (t *target) push(ev Event, size int, log *slog.Logger) {
	t.mu.Lock()
	t.queue = append(t.queue, ev)
	if len(t.queue) > size {
		old := t.queue[0]
		t.queue = t.queue[1:]
		merged := false
		for i := range t.queue {
			if t.queue[i].Event == old.Event {
				t.queue[i].Keys = dedupe(slices.Concat(old.Keys, t.queue[i].Keys))
				t.queue[i].Locales = keyLocales(t.queue[i].Keys)
				merged = true
				break
			}
		}
		if merged {
			log.Warn("notify: queue full, merged the oldest event into a later one", "url", t.url, "event", old.Event)
		} else {
			log.Error("notify: queue full, dropped the oldest event", "url", t.url, "event", old.Event, "keys", len(old.Keys))
		}
	}
	t.mu.Unlock()
	signal(t.wake)
}

func (t *target) pop() (Event, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.queue) == 0 {
		return Event{}, false
	}
	ev := t.queue[0]
	t.queue = t.queue[1:]
	return ev, true
}

func (n *Notifier) deliverLoop(ctx context.Context, t *target) {
	for {
		ev, ok := t.pop()
		if !ok {
			select {
			case <-ctx.Done():
				return
			case <-t.wake:
			}
			continue
		}
		n.deliver(ctx, t.url, ev)
		if ctx.Err() != nil {
			t.mu.Lock()
			left := len(t.queue)
			t.mu.Unlock()
			if left > 0 {
				n.log.Warn("notify: stopping with events not sent", "url", t.url, "events", left)
			}
			return
		}
	}
}

// deliver sends ev to url, retrying as Config says.
func (n *Notifier) deliver(ctx context.Context, url string, ev Event) {
	body, err := json.Marshal(ev)
	if err != nil {
		n.log.Error("notify: encode event", "err", err)
		return
	}
	wait := n.cfg.Backoff
	for try := 1; ; try++ {
		retryAfter, err := n.post(ctx, url, body)
		if err == nil {
			n.log.Debug("notify: sent", "url", url, "event", ev.Event, "keys", len(ev.Keys), "try", try)
			return
		}
		var perm permanent
		if errors.As(err, &perm) || try >= n.cfg.MaxTries || ctx.Err() != nil {
			n.log.Error("notify: giving up on an event", "url", url, "event", ev.Event, "commit", ev.Commit, "tries", try, "err", err)
			return
		}
		d := max(wait, retryAfter)
		d = min(d, n.cfg.MaxBackoff)
		n.log.Warn("notify: delivery failed, retrying", "url", url, "event", ev.Event, "try", try, "in", d, "err", err)
		timer := time.NewTimer(d)
		select {
		case <-ctx.Done():
			timer.Stop()
			n.log.Warn("notify: stopping before a retry", "url", url, "event", ev.Event)
			return
		case <-timer.C:
		}
		wait = min(2*wait, n.cfg.MaxBackoff)
	}
}

// permanent is a failure that a retry would not mend (a 4xx other than 429).
type permanent struct{ error }

// post sends one attempt; it returns how long the receiver asked to wait
// (Retry-After on a 429 or 503).
func (n *Notifier) post(ctx context.Context, url string, body []byte) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, permanent{err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "folio-notify")
	if n.cfg.Secret != "" {
		req.Header.Set(SignatureHeader, Sign(n.cfg.Secret, body))
	}
	res, err := n.client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	res.Body.Close()
	switch {
	case res.StatusCode/100 == 2:
		return 0, nil
	case res.StatusCode == http.StatusTooManyRequests || res.StatusCode/100 == 5:
		var ra time.Duration
		if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s > 0 {
			ra = time.Duration(s) * time.Second
		}
		return ra, fmt.Errorf("receiver answered %s", res.Status)
	}
	return 0, permanent{fmt.Errorf("receiver answered %s", res.Status)}
}

// Sign is the value of SignatureHeader for body: "sha256=" and the hex
// HMAC-SHA256 of the body with secret.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}
