package main

import (
	"bufio"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// loadGen sends the fixed-duration loads: wrk when it is installed (C,
// event loop: it leaves most of the two cores to the server), else the Go
// generator of load.go, whose client costs about as much CPU as the
// server it measures, so that on two cores it caps throughput well below
// what the server can do. The same generator is used for folio and nginx.
type loadGen struct {
	wrk     string // path of wrk; "" for the Go generator
	conns   int
	threads int
	tmp     string
	client  *http.Client // the Go generator's
}

func (g *loadGen) name() string {
	if g.wrk != "" {
		return fmt.Sprintf("wrk (%d threads)", g.threads)
	}
	return "Go net/http generator"
}

// run loads urls for dur; key, when set, goes in Authorization and enc,
// when set, in Accept-Encoding.
func (g *loadGen) run(urls []string, key, enc string, dur time.Duration) (loadResult, error) {
	if g.wrk == "" {
		return runLoad(g.client, urls, key, enc, g.conns, dur), nil
	}
	return g.runWrk(urls, key, enc, dur)
}

// runWrk runs wrk with a Lua script that cycles over the URLs' paths
// (they share one host), each thread starting its cycle at another
// point (thread k of n at k/n of the paths), and parses its report.
func (g *loadGen) runWrk(urls []string, key, enc string, dur time.Duration) (loadResult, error) {
	u0, err := url.Parse(urls[0])
	if err != nil {
		return loadResult{}, err
	}
	var lua strings.Builder
	lua.WriteString("local paths = {\n")
	for _, s := range urls {
		u, err := url.Parse(s)
		if err != nil {
			return loadResult{}, err
		}
		fmt.Fprintf(&lua, "  %q,\n", u.RequestURI())
	}
	fmt.Fprintf(&lua, "}\nlocal threads = 0\nsetup = function(t)\n  t:set(\"start\", math.floor(threads * #paths / %d))\n  threads = threads + 1\nend\n", g.threads)
	lua.WriteString("local i = 0\ninit = function(args)\n  i = start or 0\nend\nrequest = function()\n  i = i + 1\n  return wrk.format(\"GET\", paths[(i % #paths) + 1])\nend\n")
	script, err := os.CreateTemp(g.tmp, "wrk-*.lua")
	if err != nil {
		return loadResult{}, err
	}
	script.WriteString(lua.String())
	script.Close()
	defer os.Remove(script.Name())
	args := []string{"-t", strconv.Itoa(g.threads), "-c", strconv.Itoa(g.conns),
		"-d", fmt.Sprintf("%ds", max(1, int(dur.Round(time.Second)/time.Second))),
		"--timeout", "10s", "--latency", "-s", script.Name()}
	if key != "" {
		args = append(args, "-H", "Authorization: Bearer "+key)
	}
	if enc != "" {
		args = append(args, "-H", "Accept-Encoding: "+enc)
	}
	args = append(args, u0.Scheme+"://"+u0.Host+"/")
	out, err := exec.Command(g.wrk, args...).CombinedOutput()
	if err != nil {
		return loadResult{}, fmt.Errorf("wrk: %v: %s", err, out)
	}
	return parseWrk(string(out))
}

// parseWrk reads requests/s, the 50% and 99% latencies and the error
// counts from wrk's --latency report.
func parseWrk(out string) (loadResult, error) {
	var r loadResult
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 2 && f[0] == "Requests/sec:":
			r.RPS, _ = strconv.ParseFloat(f[1], 64)
		case len(f) == 2 && f[0] == "50%":
			r.P50 = wrkDuration(f[1])
		case len(f) == 2 && f[0] == "99%":
			r.P99 = wrkDuration(f[1])
		case len(f) >= 2 && f[1] == "requests" && len(f) >= 4 && f[2] == "in":
			r.Requests, _ = strconv.Atoi(f[0])
		case strings.HasPrefix(sc.Text(), "  Non-2xx or 3xx responses:"):
			n, _ := strconv.Atoi(f[len(f)-1])
			r.Errors += n
		case strings.HasPrefix(sc.Text(), "  Socket errors:"):
			// "Socket errors: connect 0, read 0, write 0, timeout 0"
			for i := 2; i+1 < len(f); i += 2 {
				n, _ := strconv.Atoi(strings.TrimSuffix(f[i+1], ","))
				r.Errors += n
			}
		}
	}
	if !strings.Contains(out, "Requests/sec:") {
		return r, fmt.Errorf("cannot read wrk's report: %s", out)
	}
	return r, nil
}

// wrkDuration parses wrk's "812.00us", "1.84ms", "1.02s".
func wrkDuration(s string) time.Duration {
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0
			}
			return time.Duration(f * u.scale)
		}
	}
	return 0
}
