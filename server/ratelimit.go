package server

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// RateLimit is a token bucket: PerSecond requests a second on average,
// bursts of Burst. PerSecond 0 disables the limit.
type RateLimit struct {
	PerSecond float64
	Burst     int
}

// limiter keeps one token bucket per client (IP or key name). Idle buckets
// are swept when the table grows, so it stays bounded under a spray of IPs.
type limiter struct {
	cfg RateLimit
	now func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

const sweepAt = 10000

func newLimiter(cfg RateLimit, now func() time.Time) *limiter {
	if cfg.Burst < 1 {
		cfg.Burst = max(1, int(math.Ceil(cfg.PerSecond)))
	}
	return &limiter{cfg: cfg, now: now, buckets: map[string]*bucket{}}
}

// allow takes a token for client, or returns how long to wait for one.
func (l *limiter) allow(client string) (bool, time.Duration) {
	if l == nil || l.cfg.PerSecond <= 0 {
		return true, 0
	}
	now := l.now()
	l.mu.Lock()
	b, ok := l.buckets[client]
	if !ok {
		if len(l.buckets) >= sweepAt {
			l.sweep(now)
		}
		b = &bucket{lim: rate.NewLimiter(rate.Limit(l.cfg.PerSecond), l.cfg.Burst)}
		l.buckets[client] = b
	}
	b.seen = now
	res := b.lim.ReserveN(now, 1)
	delay := res.DelayFrom(now)
	if delay > 0 {
		res.CancelAt(now)
	}
	l.mu.Unlock()
	return delay == 0, delay
}

// sweep drops buckets idle long enough to have refilled completely.
func (l *limiter) sweep(now time.Time) {
	full := time.Duration(float64(l.cfg.Burst)/l.cfg.PerSecond*float64(time.Second)) + time.Second
	for k, b := range l.buckets {
		if now.Sub(b.seen) > full {
			delete(l.buckets, k)
		}
	}
}

func rateLimited(w http.ResponseWriter, wait time.Duration) error {
	secs := int(math.Ceil(wait.Seconds()))
	w.Header().Set("Retry-After", strconv.Itoa(max(1, secs)))
	return errorf(http.StatusTooManyRequests, CodeRateLimited, "too many requests: retry in %d s", max(1, secs))
}
