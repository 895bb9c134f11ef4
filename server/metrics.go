package server

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/media"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are folio's Prometheus metrics, on a registry of their own (never
// the process-wide default). The server counts requests through it; the
// engine and the media library report through plain callbacks
// (ObserveReload, ObserveDerive) and are read at scrape time (WatchEngine,
// WatchMedia), so neither imports Prometheus.
type Metrics struct {
	reg *prometheus.Registry

	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	limited  *prometheus.CounterVec
	storage  prometheus.Counter
	panics   prometheus.Counter

	reloads       *prometheus.HistogramVec
	reloadFailure *prometheus.CounterVec
	derive        *prometheus.HistogramVec

	// statusIdx maps a status code to its slot in routeMetrics.byStatus; 0
	// is "not pre-resolved".
	statusIdx [600]uint8
}

// Statuses whose request counters a route keeps once resolved (at the
// first request answering one); any other status is looked up per
// request.
var preStatuses = [...]int{200, 201, 202, 204, 206, 304, 400, 401, 403, 404, 405, 409, 410, 412, 413, 416, 429, 500, 503}

// NewMetrics makes the metrics and their registry, with the Go runtime and
// process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_http_requests_total",
		Help: "HTTP requests by route pattern (never the raw path), method and status.",
	}, []string{"route", "method", "status"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "folio_http_request_duration_seconds",
		Help:    "Time from routing to the handler's return, by route pattern and method.",
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route", "method"})
	m.limited = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_rate_limited_total",
		Help: "Requests refused with 429 by a rate limit (ip or key).",
	}, []string{"limit"})
	m.storage = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "folio_storage_errors_total",
		Help: "Responses of 503 STORAGE_UNAVAILABLE (media storage or its state store down).",
	})
	m.panics = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "folio_http_panics_total",
		Help: "Handlers that panicked (answered 500 INTERNAL_ERROR; not in folio_http_requests_total).",
	})
	m.reloads = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "folio_content_reload_duration_seconds",
		Help:    "Time to load a new commit into a snapshot, by branch (failed loads included).",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"branch"})
	m.reloadFailure = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_content_reload_failures_total",
		Help: "Failed fetches, branch resolutions and commit loads; the last good snapshot keeps serving.",
	}, []string{"stage"})
	m.derive = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "folio_media_derivative_duration_seconds",
		Help:    "Time to render the WebP derivatives, placeholder and colour of one image, by result.",
		Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"result"})
	for i, st := range preStatuses {
		m.statusIdx[st] = uint8(i + 1)
	}
	m.reg.MustRegister(m.requests, m.latency, m.limited, m.storage, m.panics, m.reloads, m.reloadFailure, m.derive,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Known label values show up at 0 before the first event.
	m.limited.WithLabelValues("ip")
	m.limited.WithLabelValues("key")
	for _, st := range []string{"fetch", "resolve", "load"} {
		m.reloadFailure.WithLabelValues(st)
	}
	return m
}

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// ObserveReload takes the engine's reload events (engine.Config.OnReload).
func (m *Metrics) ObserveReload(ev engine.ReloadEvent) {
	if ev.Stage == "load" {
		m.reloads.WithLabelValues(ev.Branch).Observe(ev.Took.Seconds())
	}
	if ev.Err != nil {
		m.reloadFailure.WithLabelValues(ev.Stage).Inc()
	}
}

// ObserveDerive takes the media library's derivative timings
// (media.Config.OnDerive).
func (m *Metrics) ObserveDerive(took time.Duration, err error) {
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.derive.WithLabelValues(result).Observe(took.Seconds())
}

// WatchEngine adds the served content's series, read from e at each
// scrape: the commit (an info gauge with the commit as a label), its age,
// when it was loaded, and the count of content problems.
func (m *Metrics) WatchEngine(e *engine.Engine, now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	m.reg.MustRegister(&contentCollector{e: e, now: now})
}

// watchKeys adds folio_keys_file_invalid, read at each scrape (nil m:
// nothing). A second server on the same metrics adds nothing.
func (m *Metrics) watchKeys(ks *KeyStore) {
	if m == nil {
		return
	}
	_ = m.reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "folio_keys_file_invalid",
		Help: "1 while the keys file does not load (see /api/v1/status keysFile and the error log), else 0.",
	}, func() float64 {
		if ks.FileError() != nil {
			return 1
		}
		return 0
	}))
}

// WatchMedia adds the library's item count and bytes, read at each scrape.
func (m *Metrics) WatchMedia(l *media.Library) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "folio_media_items",
		Help: "Media items in the library.",
	}, func() float64 { n, _ := l.Stats(); return float64(n) }))
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "folio_media_bytes",
		Help: "Bytes of the library's originals (derivatives not counted).",
	}, func() float64 { _, b := l.Stats(); return float64(b) }))
}

var (
	descCommit = prometheus.NewDesc("folio_content_commit_info",
		"The commit served on the published branch (value 1).", []string{"branch", "commit"}, nil)
	descCommitAge = prometheus.NewDesc("folio_content_commit_age_seconds",
		"Seconds since the served commit was made (its commit time).", []string{"branch"}, nil)
	descLoaded = prometheus.NewDesc("folio_content_loaded_timestamp_seconds",
		"When the served snapshot was loaded (Unix time).", []string{"branch"}, nil)
	descProblems = prometheus.NewDesc("folio_content_problems",
		"Content problems of the served commit (files left out or partly read).", []string{"branch"}, nil)
)

type contentCollector struct {
	e   *engine.Engine
	now func() time.Time
}

func (c *contentCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descCommit
	ch <- descCommitAge
	ch <- descLoaded
	ch <- descProblems
}

func (c *contentCollector) Collect(ch chan<- prometheus.Metric) {
	p := c.e.Published()
	if p == nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(descCommit, prometheus.GaugeValue, 1, p.Branch, p.Commit)
	ch <- prometheus.MustNewConstMetric(descCommitAge, prometheus.GaugeValue, c.now().Sub(p.CommitTime).Seconds(), p.Branch)
	ch <- prometheus.MustNewConstMetric(descLoaded, prometheus.GaugeValue, float64(p.LoadedAt.UnixNano())/1e9, p.Branch)
	ch <- prometheus.MustNewConstMetric(descProblems, prometheus.GaugeValue, float64(len(p.Problems)), p.Branch)
}

// routeMetrics are one route's series, resolved once, so that a request
// costs two atomic adds and no map lookup: its latency when the route
// table is built, its counter of a status at the first request that
// answers it (every route's counter of every status made up front was
// 1.2 MB of a start's heap, for series most routes never move).
type routeMetrics struct {
	m        *Metrics
	route    string
	method   string
	latency  prometheus.Observer
	byStatus [len(preStatuses) + 1]atomic.Pointer[prometheus.Counter]
}

// forRoute resolves the series of one route pattern and method.
func (m *Metrics) forRoute(route, method string) *routeMetrics {
	if m == nil {
		return nil
	}
	return &routeMetrics{m: m, route: route, method: method, latency: m.latency.WithLabelValues(route, method)}
}

// counter is the request counter of a status that has a slot (i, 1 or
// more), resolved on its first use: two requests that race to it get
// the same series.
func (rm *routeMetrics) counter(i uint8, status int) prometheus.Counter {
	if c := rm.byStatus[i].Load(); c != nil {
		return *c
	}
	c := rm.m.requests.WithLabelValues(rm.route, rm.method, strconv.Itoa(status))
	rm.byStatus[i].Store(&c)
	return c
}

// observe records one request.
func (rm *routeMetrics) observe(status int, took time.Duration) {
	rm.latency.Observe(took.Seconds())
	var c prometheus.Counter
	if status >= 0 && status < len(rm.m.statusIdx) && rm.m.statusIdx[status] != 0 {
		c = rm.counter(rm.m.statusIdx[status], status)
	} else {
		c = rm.m.requests.WithLabelValues(rm.route, rm.method, strconv.Itoa(status))
	}
	c.Inc()
	if status == http.StatusServiceUnavailable {
		rm.m.storage.Inc()
	}
}

// rateLimited counts a 429 of the ip or key limit.
func (m *Metrics) rateLimited(which string) {
	if m != nil {
		m.limited.WithLabelValues(which).Inc()
	}
}

// unmatched counts a request that matched no route (404) or no method of
// its route (405) under the route "unmatched"; methods outside the
// standard ones count as "other", so clients cannot grow the label set.
func (m *Metrics) unmatched(method string, status int) {
	if m == nil {
		return
	}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
	default:
		method = "other"
	}
	m.requests.WithLabelValues("unmatched", method, strconv.Itoa(status)).Inc()
}

// panicked counts a handler that panicked.
func (m *Metrics) panicked() {
	if m != nil {
		m.panics.Inc()
	}
}

// routeLabel writes a route pattern the way the OpenAPI document does:
// /api/v1/pages/*slug → /api/v1/pages/{slug}.
func routeLabel(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if len(s) > 1 && (s[0] == ':' || s[0] == '*') {
			segs[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(segs, "/")
}

// statusWriter remembers the status a handler sent. They are pooled: the
// hot path allocates none.
type statusWriter struct {
	http.ResponseWriter
	status int
}

var statusWriters = sync.Pool{New: func() any { return new(statusWriter) }}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// ReadFrom keeps net/http's sendfile path for the files http.ServeContent
// copies, when the writer beneath has one.
func (w *statusWriter) ReadFrom(r io.Reader) (int64, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{w.ResponseWriter}, r)
}

// Unwrap lets http.ResponseController reach the connection (uploads
// extend their read deadline).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes flushes on (http.ServeContent of large files).
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
