package server_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkBodyTreeList is what ?body=tree costs per document on a type
// of FOLIO_BENCH_TREE_N posts (default 10000) of a docs page each (about
// 3 KB: headings, lists, code, a table, links, Docsy's alert and
// tabpane), read as lists of 100, beside the same lists without it (the
// bodies as HTML). Per case: first-ns/doc and first-B/doc are the first
// sweep of every page of the list, which makes each body's HTML or tree
// (timed once, allocated bytes from the runtime); kept-B/doc is the heap
// the kept renders hold after it (after a GC, against the heap before);
// the timed loop is a sweep once they are kept, ns/doc and B/doc per
// document served; cpu-ns/doc and first-cpu-ns/doc are the process's CPU
// time (every goroutine's), steadier than wall time on a loaded machine.
func BenchmarkBodyTreeList(b *testing.B) {
	n := 10_000
	if s := os.Getenv("FOLIO_BENCH_TREE_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 100 {
			b.Fatalf("FOLIO_BENCH_TREE_N=%q", s)
		}
	}
	// one server per case, each over its own copy of the repository
	for _, c := range []struct{ name, query string }{
		{"html", ""},
		{"tree", "&body=tree"},
	} {
		bare := treeBenchRepo(b, n)
		ts := startServer(b, bare)
		key := ts.reader(b)
		h := ts.Handler
		sweep := func() {
			for off := 0; off < n; off += 100 {
				req := httptest.NewRequest("GET", fmt.Sprintf("/api/v1/content/posts?limit=100&offset=%d%s", off, c.query), nil)
				req.Header.Set("Authorization", "Bearer "+key)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		}
		var m0, m1, m2 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		start, cpu0 := time.Now(), cpuTime()
		sweep()
		first, firstCPU := time.Since(start), cpuTime()-cpu0
		runtime.ReadMemStats(&m1)
		runtime.GC()
		runtime.ReadMemStats(&m2)
		b.Run(c.name, func(b *testing.B) {
			var a0, a1 runtime.MemStats
			runtime.ReadMemStats(&a0)
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				sweep()
			}
			cpu := cpuTime() - cpu0
			b.StopTimer()
			runtime.ReadMemStats(&a1)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/doc")
			b.ReportMetric(float64(a1.TotalAlloc-a0.TotalAlloc)/float64(b.N*n), "B/doc")
			// (after the loop: ResetTimer drops the metrics reported before)
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*n), "cpu-ns/doc")
			b.ReportMetric(float64(first.Nanoseconds())/float64(n), "first-ns/doc")
			b.ReportMetric(float64(firstCPU.Nanoseconds())/float64(n), "first-cpu-ns/doc")
			b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(n), "first-B/doc")
			b.ReportMetric((float64(m2.HeapAlloc)-float64(m0.HeapAlloc))/float64(n), "kept-B/doc")
		})
	}
}

// cpuTime is the CPU time (user and system) the process has used, every
// goroutine's: on a loaded machine it moves far less than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// treeBenchRepo is a bare repository of n posts, each a docs page.
func treeBenchRepo(b *testing.B, n int) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "site.git")
	git(b, filepath.Dir(dir), "init", "-q", "--bare", dir)
	var in strings.Builder
	in.WriteString("commit refs/heads/main\ncommitter Bench <bench@localhost> 1700000000 +0000\ndata 5\nbench\n")
	file := func(path, body string) {
		fmt.Fprintf(&in, "M 644 inline %s\ndata %d\n%s\n", path, len(body), body)
	}
	var body strings.Builder
	for i := range 4 {
		body.WriteString("## Section " + strings.Repeat("x", i) + "\n\nSome *text* with a [link](/docs/a/) and `code`, and more words to read here.\n\n- one\n- two **bold**\n- three\n\n")
		body.WriteString("```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n")
		body.WriteString("{{< alert color=\"warning\" >}}\nRead **this**.\n{{< /alert >}}\n\n{{< tabpane >}}\n{{% tab \"Go\" %}}\nUse `go`.\n{{% /tab %}}\n{{< /tabpane >}}\n\n")
	}
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		file(fmt.Sprintf("content/posts/p%06d.md", i), fmt.Sprintf("---\ntitle: Post %d\npublishedAt: %s\n---\nPost %d.\n\n%s",
			i, t0.Add(time.Duration(i)*time.Minute).Format(time.RFC3339), i, body.String()))
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git fast-import: %v\n%s", err, out)
	}
	return dir
}
