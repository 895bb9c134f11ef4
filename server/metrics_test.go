package server_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/server"
)

// scrape reads the metrics endpoint in the text exposition format.
func scrape(t testing.TB, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %d %v", res.StatusCode, err)
	}
	return string(b)
}

// metric is the value of the series name whose labels include every
// `key="value"` of labels; -1 when there is none.
func metric(text, name string, labels ...string) float64 {
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
next:
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		series, value, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		n, lbls, _ := strings.Cut(series, "{")
		if n != name {
			continue
		}
		for _, l := range labels {
			if !strings.Contains(lbls, l) {
				continue next
			}
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return -1
		}
		return v
	}
	return -1
}

// TestMetrics serves real requests, an upload and a git push, and checks
// that the series move on a scrape.
func TestMetrics(t *testing.T) {
	t.Parallel()
	m := server.NewMetrics()
	repo := newRepo(t, mediaSite)
	var lib *media.Library
	ts := startServer(t, repo.bare,
		withLocalMedia(t, t.TempDir(), func(c *media.Config) { c.OnDerive = m.ObserveDerive }),
		func(e *engine.Config, s *server.Config) {
			e.OnReload = m.ObserveReload
			s.Metrics = m
			// One request per key, then 429 (for a thousand seconds).
			s.RateKey = server.RateLimit{PerSecond: 0.001}
			lib = s.Media
		})
	m.WatchEngine(ts.Engine, nil)
	m.WatchMedia(lib)
	ms := httptest.NewServer(m.Handler())
	defer ms.Close()

	before := scrape(t, ms.URL+"/metrics")
	if v := metric(before, "folio_content_reload_duration_seconds_count", `branch="main"`); v != 1 {
		t.Errorf("reloads before the push: %v, want 1 (the first load)", v)
	}
	if v := metric(before, "folio_media_items"); v != 0 {
		t.Errorf("media items %v, want 0", v)
	}

	reader := ts.key(t, "r1", server.ScopeContentRead)
	if r := get(t, ts.URL+"/api/v1/pages/home", reader); r.Status != http.StatusOK {
		t.Fatalf("page: %d", r.Status)
	}
	wantError(t, get(t, ts.URL+"/api/v1/pages/home", reader), http.StatusTooManyRequests, "RATE_LIMITED")
	wantError(t, get(t, ts.URL+"/api/v1/pages/nosuch", ts.key(t, "r2", server.ScopeContentRead)), http.StatusNotFound, "NOT_FOUND")
	wantError(t, get(t, ts.URL+"/api/v1/pages/home", ""), http.StatusUnauthorized, "UNAUTHORIZED")
	wantError(t, get(t, ts.URL+"/api/v1/no/such/route", ""), http.StatusNotFound, "NOT_FOUND")
	writer := ts.key(t, "w", server.ScopeMediaWrite)
	png := testPNG(t, 300, 200)
	body, ct := multipartBody(filePart("a.png", png))
	if r := do(t, http.MethodPost, ts.URL+"/api/v1/media", writer, bytes.NewReader(body), "Content-Type", ct); r.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	commit := repo.commit("two", map[string]string{"pages/about.md": "---\ntitle: About\n---\nx\n"})
	eventually(t, "the new commit in the metrics", func() bool {
		return metric(scrape(t, ms.URL+"/metrics"), "folio_content_commit_info", `commit="`+commit+`"`) == 1
	})

	after := scrape(t, ms.URL+"/metrics")
	page := `route="/api/v1/pages/{slug}"`
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"folio_http_requests_total", []string{page, `method="GET"`, `status="200"`}, 1},
		{"folio_http_requests_total", []string{page, `method="GET"`, `status="429"`}, 1},
		{"folio_http_requests_total", []string{page, `method="GET"`, `status="404"`}, 1},
		{"folio_http_requests_total", []string{page, `method="GET"`, `status="401"`}, 1},
		{"folio_http_requests_total", []string{`route="unmatched"`, `method="GET"`, `status="404"`}, 1},
		{"folio_http_requests_total", []string{`route="/api/v1/media"`, `method="POST"`, `status="201"`}, 1},
		{"folio_http_request_duration_seconds_count", []string{page, `method="GET"`}, 4},
		{"folio_rate_limited_total", []string{`limit="key"`}, 1},
		{"folio_rate_limited_total", []string{`limit="ip"`}, 0},
		{"folio_media_items", nil, 1},
		{"folio_media_bytes", nil, float64(len(png))},
		{"folio_media_derivative_duration_seconds_count", []string{`result="ok"`}, 1},
		{"folio_content_reload_duration_seconds_count", []string{`branch="main"`}, 2},
		{"folio_content_reload_failures_total", []string{`stage="load"`}, 0},
		{"folio_content_problems", []string{`branch="main"`}, 0},
		{"folio_storage_errors_total", nil, 0},
	} {
		if got := metric(after, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if strings.Contains(after, "nosuch") || strings.Contains(after, "/no/such") {
		t.Error("a raw path reached a label")
	}
	if v := metric(after, "folio_content_commit_age_seconds", `branch="main"`); v < 0 {
		t.Errorf("commit age %v", v)
	}
	if v := metric(after, "folio_content_commit_info", `commit="`+commit+`"`); v != 1 {
		t.Errorf("commit info %v", v)
	}
}

// TestMetrics_StatusCountersOnFirstUse: a route's request counter of a
// status is made by the first request answering it, not for every status
// of every route when the route table is built (1.2 MB of a start's
// heap); it counts from there, and a status without a slot still counts.
func TestMetrics_StatusCountersOnFirstUse(t *testing.T) {
	t.Parallel()
	m := server.NewMetrics()
	repo := newRepo(t, mediaSite)
	ts := startServer(t, repo.bare, func(e *engine.Config, s *server.Config) { s.Metrics = m })
	ms := httptest.NewServer(m.Handler())
	defer ms.Close()
	page := `route="/api/v1/pages/{slug}"`
	series := func(status string) float64 {
		return metric(scrape(t, ms.URL+"/metrics"), "folio_http_requests_total", page, `method="GET"`, `status="`+status+`"`)
	}
	for _, st := range []string{"200", "404", "500"} {
		if v := series(st); v != -1 {
			t.Errorf("status %s of the page route before a request: %v, want no series", st, v)
		}
	}
	reader := ts.key(t, "r", server.ScopeContentRead)
	for range 2 {
		if r := get(t, ts.URL+"/api/v1/pages/home", reader); r.Status != http.StatusOK {
			t.Fatalf("page: %d", r.Status)
		}
	}
	wantError(t, get(t, ts.URL+"/api/v1/pages/nosuch", reader), http.StatusNotFound, "NOT_FOUND")
	for st, want := range map[string]float64{"200": 2, "404": 1, "500": -1} {
		if v := series(st); v != want {
			t.Errorf("status %s of the page route: %v, want %v", st, v, want)
		}
	}
}
