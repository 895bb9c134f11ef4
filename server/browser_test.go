package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/folio-cms/folio/fixtures/testkit"
)

// TestMain stops the package's Chromium after the tests, and removes the
// folio binary testkit.BuildFolio made (TestMediaCrash).
func TestMain(m *testing.M) {
	code := m.Run()
	stopChromium()
	testkit.RemoveBuilds()
	os.Exit(code)
}

// chromiumBinary finds Chromium, or skips the test (fails it in CI, where
// .ci/run installs Debian's chromium).
func chromiumBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("FOLIO_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed; .ci/run installs it")
	}
	t.Skip("chromium is not installed: apt-get install chromium to run the browser tests (CI installs it)")
	return ""
}

// chromium is the one headless Chromium of the test binary, started by
// the first browser test and stopped by TestMain: every browser test gets
// a tab in a browser context of its own (newBrowser), as separate from
// the others' as a new incognito profile (cookies, storage, cache,
// permissions), without the second or more a browser takes to start.
// Background services are off and every host name but 127.0.0.1 fails to
// resolve.
var chromium struct {
	once sync.Once
	ctx  context.Context // the first tab's: its cancellation stops the browser
	stop func()
	err  error
}

// sharedChromium starts the package's Chromium once.
func sharedChromium(bin string) (context.Context, error) {
	chromium.once.Do(func() {
		dir, err := os.MkdirTemp("", "folio-chromium-")
		if err != nil {
			chromium.err = err
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(bin),
			chromedp.Headless,
			chromedp.NoSandbox,
			chromedp.DisableGPU,
			chromedp.NoFirstRun,
			chromedp.UserDataDir(dir),
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-default-apps", true),
			chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
			chromedp.WindowSize(1280, 900),
		)
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(actx)
		chromium.ctx = ctx
		chromium.stop = func() { cancelCtx(); cancelAlloc(); os.RemoveAll(dir) }
		// The first call starts the browser; it must not run under a timeout.
		if err := chromedp.Do(ctx); err != nil {
			chromium.err = fmt.Errorf("starting chromium: %w", err)
		}
	})
	return chromium.ctx, chromium.err
}

// stopChromium stops the package's Chromium if a test started it.
func stopChromium() {
	if chromium.stop != nil {
		chromium.stop()
	}
}

// browser is a tab of the package's Chromium in a browser context of its
// own. It records uncaught exceptions and Content-Security-Policy
// violations of every page it loads.
type browser struct {
	ctx context.Context

	mu        sync.Mutex
	failures  []string
	shotsDir  string
	shotCount int
}

// browserTests bounds the tests using the Chromium at once to two, what
// go test's default -parallel gave on 2 cores, whatever make test's
// -parallel: a Decap editor is a React app that takes a core while it
// renders, and four of them under a loaded machine missed their 20 s
// waits. A test holds one slot for all its tabs (two editors, subtests),
// so a test never waits for a second one.
var browserTests = struct {
	slots chan struct{}
	mu    sync.Mutex
	tabs  map[string]int // open tabs by top-level test
}{slots: make(chan struct{}, 2), tabs: map[string]int{}}

// holdBrowserSlot takes the slot of t's top-level test for one tab, until
// t ends.
func holdBrowserSlot(t *testing.T) {
	test, _, _ := strings.Cut(t.Name(), "/")
	browserTests.mu.Lock()
	held := browserTests.tabs[test] > 0
	browserTests.tabs[test]++
	browserTests.mu.Unlock()
	if !held {
		browserTests.slots <- struct{}{}
	}
	t.Cleanup(func() {
		browserTests.mu.Lock()
		defer browserTests.mu.Unlock()
		if browserTests.tabs[test]--; browserTests.tabs[test] == 0 {
			delete(browserTests.tabs, test)
			<-browserTests.slots
		}
	})
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	parent, err := sharedChromium(chromiumBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	holdBrowserSlot(t)
	ctx, cancel := chromedp.NewContext(parent, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	b := &browser{ctx: ctx, shotsDir: os.Getenv("FOLIO_SCREENSHOTS")}
	// The first call makes the browser context and its tab. The tab
	// behaves as the focused one, as the only tab of a browser would,
	// although the other tests' tabs share the browser (the clipboard,
	// focus events).
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	if _, err := chromedp.Call(ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			b.fail("uncaught exception: " + msg)
		case *runtime.EventConsoleAPICalled:
			if string(ev.Type) == "error" {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				b.fail("console.error: " + strings.Join(parts, " "))
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	// Record CSP violations from the first script on: the pages cannot
	// report them themselves (no inline script).
	const watch = `window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(e.violatedDirective + " " + e.blockedURI));`
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: watch}); err != nil {
		t.Fatal(err)
	}
	return b
}

func (b *browser) fail(msg string) {
	b.mu.Lock()
	b.failures = append(b.failures, msg)
	b.mu.Unlock()
}

// run runs actions and fails the test with what went wrong.
func (b *browser) run(t *testing.T, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.shot(t, "failed")
		t.Fatalf("%s: %v%s", what, err, b.report())
	}
}

// check fails the test if a page threw, logged an error or broke its CSP.
func (b *browser) check(t *testing.T) {
	t.Helper()
	violations := evalAs[[]string](t, b, `window.__violations || []`)
	for _, v := range violations {
		b.fail("CSP violation: " + v)
	}
	if r := b.report(); r != "" {
		t.Fatalf("the page misbehaved:%s", r)
	}
}

func (b *browser) report() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.failures) == 0 {
		return ""
	}
	return "\n  " + strings.Join(b.failures, "\n  ")
}

// shot saves a PNG screenshot under $FOLIO_SCREENSHOTS when it is set.
func (b *browser) shot(t *testing.T, name string) {
	t.Helper()
	if b.shotsDir == "" {
		return
	}
	buf, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	b.mu.Lock()
	b.shotCount++
	n := b.shotCount
	b.mu.Unlock()
	p := filepath.Join(b.shotsDir, t.Name()+"-"+string(rune('0'+n))+"-"+name+".png")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	t.Logf("screenshot: %s", p)
}

// evalAs evaluates a JavaScript expression, awaiting a promise, and
// decodes its value.
func evalAs[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.shot(t, "failed")
		t.Fatalf("evaluating %s: %v%s", expr, err, b.report())
	}
	return v
}

// waitJS polls a JavaScript condition until it is true.
func (b *browser) waitJS(t *testing.T, what, cond string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		b.shot(t, "timeout")
		t.Fatalf("waiting for %s (%s): %v%s", what, cond, err, b.report())
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// setValue sets the value of a form field by id as a user would (input
// and change events).
func (b *browser) setValue(t *testing.T, id, value string) {
	t.Helper()
	evalAs[chromedp.Void](t, b, `(() => { const e = document.getElementById(`+jsString(id)+`); e.value = `+jsString(value)+`;
e.dispatchEvent(new Event("input", {bubbles: true})); e.dispatchEvent(new Event("change", {bubbles: true})); })()`)
}

// TestBrowsersApart: two tests' browsers share the Chromium but nothing
// a page keeps: a cookie and localStorage set in one are not in the other.
func TestBrowsersApart(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<!doctype html><title>x</title>")
	}))
	defer site.Close()
	one, two := newBrowser(t), newBrowser(t)
	one.run(t, "open the page", chromedp.Navigate(site.URL))
	evalAs[chromedp.Void](t, one, `document.cookie = "who=one; path=/"; localStorage.setItem("who", "one")`)
	if got := evalAs[string](t, one, `document.cookie + "|" + localStorage.getItem("who")`); got != "who=one|one" {
		t.Fatalf("the first browser keeps %q", got)
	}
	two.run(t, "open the page", chromedp.Navigate(site.URL))
	if got := evalAs[string](t, two, `document.cookie + "|" + localStorage.getItem("who")`); got != "|null" {
		t.Fatalf("the second browser sees the first's cookie or storage: %q", got)
	}
}
