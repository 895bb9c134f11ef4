package transport

import (
	"math"
	"sync"
	"time"
)

// RateLimit is a token bucket: PerSecond requests a second on average,
// bursts of Burst. PerSecond 0 disables the limit.
type RateLimit struct {
	PerSecond float64
	Burst     int
}

// maxBuckets bounds the buckets of one generation: a spray of distinct
// clients faster than that per refill period turns generations early.
const maxBuckets = 1 << 16

// Limiter keeps one token bucket per client (IP, IPv6 prefix or key name).
//
// Buckets live in two generations. A client's bucket is looked up in the
// current one, else taken over from the previous one, else made full.
// Every refill period (the time an empty bucket takes to fill, plus a
// second) the current generation becomes the previous one and the
// previous one is dropped whole: a bucket in it was last used more than a
// period ago, so it had filled again, and a new full bucket is the same.
// Expiry is thus O(1) per request, amortised, and the table holds the
// clients of two periods at most; a spray of more than maxBuckets
// distinct clients in one period turns generations early (the clients it
// pushes out get full buckets again: the limit loosens for them rather
// than the server slowing for everyone).
type Limiter struct {
	cfg    RateLimit
	now    func() time.Time
	period int64 // ns

	mu        sync.Mutex
	cur, prev map[string]bucket
	turned    int64 // ns: when cur began
}

// bucket is a token bucket: tokens at the time last (ns).
type bucket struct {
	tokens float64
	last   int64
}

// NewLimiter makes a limiter of cfg on the clock now.
func NewLimiter(cfg RateLimit, now func() time.Time) *Limiter {
	if cfg.Burst < 1 {
		cfg.Burst = max(1, int(math.Ceil(cfg.PerSecond)))
	}
	l := &Limiter{cfg: cfg, now: now, cur: map[string]bucket{}, prev: map[string]bucket{}}
	if cfg.PerSecond > 0 {
		l.period = int64(float64(cfg.Burst)/cfg.PerSecond*float64(time.Second)) + int64(time.Second)
	}
	return l
}

// Allow takes a token for client, or returns how long to wait for one.
func (l *Limiter) Allow(client string) (bool, time.Duration) {
	if l == nil || l.cfg.PerSecond <= 0 {
		return true, 0
	}
	now := l.now().UnixNano()
	l.mu.Lock()
	if now-l.turned >= l.period || len(l.cur) >= maxBuckets {
		l.turn(now)
	}
	b, ok := l.cur[client]
	if !ok {
		if b, ok = l.prev[client]; ok {
			delete(l.prev, client)
		} else {
			b = bucket{tokens: float64(l.cfg.Burst), last: now}
		}
	}
	if now > b.last {
		b.tokens = min(float64(l.cfg.Burst), b.tokens+float64(now-b.last)/1e9*l.cfg.PerSecond)
		b.last = now
	}
	var wait time.Duration
	if b.tokens >= 1 {
		b.tokens--
	} else {
		wait = time.Duration((1 - b.tokens) / l.cfg.PerSecond * float64(time.Second))
	}
	l.cur[client] = b
	l.mu.Unlock()
	return wait == 0, wait
}

// turn starts a new generation at now. The dropped one is left to the
// garbage collector; its map is not reused, so that a burst of clients
// does not keep a large table allocated.
func (l *Limiter) turn(now int64) {
	if now-l.turned >= 2*l.period {
		// Idle for two periods: everything has filled again.
		l.prev = map[string]bucket{}
	} else {
		l.prev = l.cur
	}
	l.cur = make(map[string]bucket, min(len(l.prev), 1024))
	l.turned = now
}

// size is the number of buckets held (for tests).
func (l *Limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.cur) + len(l.prev)
}
