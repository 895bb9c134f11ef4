package main

import (
	"bytes"
	"io"
	"testing"
	"time"
)

func TestParseWrk(t *testing.T) {
	out := `Running 3s test @ http://127.0.0.1:18099/
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     4.22ms    8.42ms  97.18ms   92.80%
    Req/Sec    15.34k     8.39k   30.18k    53.33%
  Latency Distribution
     50%  812.00us
     75%    4.16ms
     90%    9.63ms
     99%    1.02s
  92338 requests in 3.10s, 735.57MB read
  Socket errors: connect 0, read 2, write 0, timeout 3
  Non-2xx or 3xx responses: 7
Requests/sec:  29786.90
Transfer/sec:    237.28MB
`
	got, err := parseWrk(out)
	if err != nil {
		t.Fatal(err)
	}
	want := loadResult{Requests: 92338, Errors: 12, RPS: 29786.90, P50: 812 * time.Microsecond, P99: 1020 * time.Millisecond}
	if got != want {
		t.Errorf("parseWrk = %+v, want %+v", got, want)
	}
}

func TestSummarize(t *testing.T) {
	got := summarize([]float64{5, 1, 3, 2})
	if want := (summary{Median: 2.5, Min: 1, Max: 5, N: 4}); got != want {
		t.Errorf("summarize = %+v, want %+v", got, want)
	}
	if got := percentile([]time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.5); got != 6 {
		t.Errorf("p50 = %v, want 6 (nearest rank, rounding up)", got)
	}
}

func TestPDFStream(t *testing.T) {
	data, err := io.ReadAll(newPDFStream(200_000, 1))
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != 200_000 || !bytes.HasPrefix(data, []byte("%PDF-")) {
		t.Errorf("got %d bytes starting %q", len(data), data[:8])
	}
}
