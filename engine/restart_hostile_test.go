package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestEngine_HostileValuesRestartMatchesCold: front matter and data
// files with the values a cache codec gets wrong most easily (NaN and
// infinities, -0, integers past 64 bits, times in odd zones, binary,
// keys that are not strings, nesting 200 deep, a 1 MB string, control
// characters, bytes that are not UTF-8, an empty key, null): a first
// start that serves the documents decoded from their cache form
// (encodeFirstMin), and a restart on the cache it wrote, serve byte for
// byte what a start that keeps the parsed documents serves. (Held.)
func TestEngine_HostileValuesRestartMatchesCold(t *testing.T) {
	r := newSrcBareSite(t)
	deep := strings.Repeat("{a: ", 200) + "1" + strings.Repeat("}", 200)
	values := []string{
		"n: .nan", "n: .inf", "n: -.inf", "n: -0.0", "n: 18446744073709551617", "n: -9223372036854775809",
		"n: 9223372036854775807", "n: 0x7fffffffffffffff", "n: 1e400", "n: 4.9e-324",
		"t: 2024-02-29T23:59:60Z", "t: 2024-01-01T00:00:00+14:00", "t: 2024-01-01T00:00:00.123456789-09:30", "t: 0001-01-01", "t: 9999-12-31T23:59:59Z",
		"b: !!binary aGVsbG8=", "m: {1: one, true: yes, 2.5: x, null: n}", "m: {\"\": empty}", "d: " + deep,
		"s: \"\\0\\x01\\u2028\\uFFFE\"", "s: \"\\xff\"", "s: " + strings.Repeat("x", 1<<20), "s: null", "s: ~", "s: []", "s: {}",
		"l: [[[[[]]]]]", "s: !!str 123", "s: \"\\uD800\"",
	}
	files := map[string]string{"globals.yaml": "siteName: A\n"}
	for i, v := range values {
		files[fmt.Sprintf("content/posts/v%02d.md", i)] = fmt.Sprintf("---\ntitle: V%d\n%s\n---\nBody %d\n", i, v, i)
		files[fmt.Sprintf("content/data/v%02d.yaml", i)] = fmt.Sprintf("title: D%d\n%s\n", i, v)
	}
	files["content/data/j.json"] = `{"title": "J", "n": 1e999, "big": 123456789012345678901234567890, "s": "\ud800", "k": {"": 1}}`
	files["content/data/t.toml"] = "title = \"T\"\nn = nan\ni = inf\nd = 1979-05-27T00:32:00.999999-07:00\nl = 07:32:00\nld = 1979-05-27\n"
	r.Commit(srcDay(0), files)
	r.Push(false)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	serial, err := Open(context.Background(), Config{Site: r.Site(), Now: func() time.Time { return now }, lookupFirstMin: -1, encodeFirstMin: -1})
	if err != nil {
		t.Fatal(err)
	}
	want := viewDump(t, serial, false)
	serial.Close()
	served := 0
	for i := range values {
		if strings.Contains(want, fmt.Sprintf(`"title":"V%d"`, i)) {
			served++
		}
	}
	if served < len(values)/2 {
		t.Fatalf("%d of %d posts served:\n%.3000s", served, len(values), want)
	}
	cfg := Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return now }, lookupFirstMin: 1, encodeFirstMin: 1}
	for _, round := range []string{"first start", "restart", "second restart"} {
		e, err := Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if st := e.src.Stats(); round != "first start" && (st.LoadedFromDisk == 0 || st.Parsed != 0) {
			t.Fatalf("%s: %+v, want the documents from the cache", round, st)
		}
		if got := viewDump(t, e, false); got != want {
			a, b := got, want
			for i := range min(len(a), len(b)) {
				if a[i] != b[i] {
					a, b = a[max(0, i-300):min(len(a), i+300)], b[max(0, i-300):min(len(b), i+300)]
					break
				}
			}
			t.Fatalf("%s serves\n%s\na start that keeps the parsed documents serves\n%s", round, a, b)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
