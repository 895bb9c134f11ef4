// Command folio-bench measures what users of folio feel: cold start, push
// to serve, read throughput and latency against nginx serving the same
// bytes, media search, image derivatives, a large upload, and the media
// library in an S3 bucket (migration, a fresh box's start, a write seen
// by another box). It starts `folio serve` (and nginx, and versitygw as
// the S3 server) as subprocesses on 127.0.0.1 only, on sites and media
// libraries written by folio-gen (cached under -data), and prints a
// Markdown table that it also writes to -out.
//
//	folio-bench -folio .bin/folio -gen .bin/folio-gen -out bench/out/results.md
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// groups are the measurements -only selects from, in the order they run.
var groups = []string{"cold", "model", "push", "write", "refs", "load", "search", "csearch", "fsearch", "locales", "mediastart", "mediamigrate", "derive", "crop", "upload", "pdfupload", "worstwrite", "spray", "bucket", "scale"}

// explicitOnly are the groups a run without -only leaves out: scale
// serves a site of a million files (`make bench-scale`).
var explicitOnly = []string{"scale"}

type bench struct {
	folio, gen, nginx string
	versitygw         string // the S3 server of the bucket group
	rebuildBucket     bool
	wrk               string // "" uses the Go load generator
	dataDir, outFile  string
	tmp               string
	seed              uint64
	runs              int
	dur               time.Duration
	conns             int
	sizes             []int
	loadSize          int // site size for load and search
	pushSizes         []int
	scaleSize         int    // site size of the scale group
	scaleBase         int    // the size it compares request throughput with
	scaleLoadOnlyFlag bool   // -scale-load-only: only the throughput rows (scale_load.go)
	scalePushOnlyFlag bool   // -scale-push-only: only the push rows (scale_push.go)
	scaleKeep         string // where the scale group keeps clones and parse caches ("" the run's temp dir)
	scaleEnv          []string
	scaleCPU          bool // a CPU profile of each scale load
	mediaN            int
	legacyMedia       string
	only              map[string]bool
	against           string    // more folio binaries run interleaved with -folio, comma-separated ("" none)
	cur               *folioBin // the binary the groups start now
	coldSearch        bool      // the cold group also waits once each for the search index

	full          *server // shared by the load and search groups
	keysFile, key string
	client        *http.Client // for polling and single requests
	rows          []row
	notes         []string
	progress      io.Writer
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == floorArg {
		if err := serveFloor(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "folio-bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(os.Args[1:]); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "folio-bench:", err)
		}
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("folio-bench", flag.ContinueOnError)
	b := &bench{progress: os.Stderr}
	fs.StringVar(&b.folio, "folio", ".bin/folio", "the folio binary")
	fs.StringVar(&b.gen, "gen", ".bin/folio-gen", "the folio-gen binary")
	fs.StringVar(&b.nginx, "nginx", "", "the nginx binary (default: nginx on PATH, else /usr/sbin/nginx; the comparison is skipped without one)")
	fs.StringVar(&b.versitygw, "versitygw", ".bin/versitygw", "the versitygw binary (S3 server of the bucket group; `make versitygw`)")
	fs.BoolVar(&b.rebuildBucket, "rebuild-bucket", false, "migrate the media library into a new bucket even when one is cached under -data")
	loadgen := fs.String("loadgen", "auto", "load generator: wrk, go, or auto (wrk when installed)")
	fs.StringVar(&b.dataDir, "data", "bench/out/data", "where generated sites and libraries are cached")
	fs.StringVar(&b.outFile, "out", "bench/out/results.md", "the results file (Markdown)")
	fs.Uint64Var(&b.seed, "seed", 1, "generator seed")
	quick := fs.Bool("quick", false, "a quick run: 1k and 10k files, 10k media, 3 runs, 2 s loads")
	runs := fs.Int("runs", 0, "runs per figure (default 5, 3 with -quick)")
	dur := fs.Duration("duration", 0, "length of one load run (default 5s, 2s with -quick)")
	fs.IntVar(&b.conns, "conns", 64, "concurrent connections of the load runs")
	sizes := fs.String("sizes", "", "site sizes for cold start (default 1000,10000,100000; 1000,10000 with -quick)")
	pushSizes := fs.String("push-sizes", "", "site sizes for the push group (default 10000,100000; 10000 with -quick)")
	fs.StringVar(&b.legacyMedia, "legacy-media", "", "a media root an earlier release wrote (sidecars beside the files), for the mediamigrate group: copied before each run, never changed")
	fs.IntVar(&b.mediaN, "media", 0, "media items for search and media start-up (default 100000, 10000 with -quick)")
	fs.IntVar(&b.scaleSize, "scale-size", 1000000, "site size of the scale group (-only scale; `make bench-scale`)")
	fs.IntVar(&b.scaleBase, "scale-base", 10000, "site size the scale group compares one-item and filtered-list throughput with")
	fs.BoolVar(&b.scaleLoadOnlyFlag, "scale-load-only", false, "the scale group measures only the throughput of one item and the filtered list at -scale-size and -scale-base: both restarted and serving, each endpoint loaded on the two in turn for -runs rounds (order alternating), with folio's CPU per request; nothing else running (no pushes, branches or background saves before the loads)")
	fs.BoolVar(&b.scalePushOnlyFlag, "scale-push-only", false, "the scale group measures only push to serve at -scale-size: the site restarted from the parse cache kept in -scale-keep (a first start writes it when missing), idle, then the one-file pushes; no first starts, offsets, branches or loads")
	fs.StringVar(&b.scaleKeep, "scale-keep", "", "with -scale-load-only or -scale-push-only, a directory keeping the served clones and their parse caches between runs (the first start that writes a cache is skipped when it is there)")
	scaleEnv := fs.String("scale-env", "", "environment added to the scale group's folio, space-separated (GOGC=200 GOMEMLIMIT=6GiB GODEBUG=gctrace=1)")
	fs.BoolVar(&b.scaleCPU, "scale-cpuprofile", false, "with -scale-load-only, the last round loads each endpoint once more while taking a CPU profile (bench/out/scale-profiles/cpu-<size>-<endpoint>.pb.gz)")
	fs.StringVar(&b.against, "against", "", "other folio binaries, comma-separated (older builds): each group runs -runs times with each binary in turn, one run each, and the table shows each one's median and -folio's ratio to it")
	fs.BoolVar(&b.coldSearch, "cold-search", true, "the cold group also starts once each (first start, restart) and waits for the content search index")
	only := fs.String("only", "", "comma-separated groups to run: "+strings.Join(groups, ","))
	if err := fs.Parse(args); err != nil {
		return err
	}
	b.runs, b.dur = 5, 5*time.Second
	defSizes, defPush, defMedia := "1000,10000,100000", "10000,100000", 100000
	if *quick {
		b.runs, b.dur, defSizes, defPush, defMedia = 3, 2*time.Second, "1000,10000", "10000", 10000
	}
	if *runs > 0 {
		b.runs = *runs
	}
	if *dur > 0 {
		b.dur = *dur
	}
	if *sizes == "" {
		*sizes = defSizes
	}
	if b.mediaN == 0 {
		b.mediaN = defMedia
	}
	if *pushSizes == "" {
		*pushSizes = defPush
	}
	var err error
	if b.sizes, err = parseSizes("-sizes", *sizes); err != nil {
		return err
	}
	if b.pushSizes, err = parseSizes("-push-sizes", *pushSizes); err != nil {
		return err
	}
	b.loadSize = 10000
	b.scaleEnv = scaleEnvList(*scaleEnv)
	if b.scaleSize <= 0 || b.scaleBase <= 0 {
		return errors.New("-scale-size and -scale-base must be positive")
	}
	b.only = map[string]bool{}
	for _, g := range strings.Split(*only, ",") {
		if g = strings.TrimSpace(g); g == "" {
			continue
		}
		if !contains(groups, g) {
			return fmt.Errorf("-only: unknown group %q (have %s)", g, strings.Join(groups, ","))
		}
		b.only[g] = true
	}
	for _, p := range []*string{&b.folio, &b.gen, &b.versitygw, &b.dataDir, &b.outFile} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		*p = abs
	}
	if b.nginx == "" {
		b.nginx = findNginx()
	}
	switch *loadgen {
	case "go":
	case "wrk", "auto":
		p, err := exec.LookPath("wrk")
		if err != nil && *loadgen == "wrk" {
			return fmt.Errorf("-loadgen wrk: %w", err)
		}
		b.wrk = p
	default:
		return fmt.Errorf("-loadgen must be wrk, go or auto")
	}
	if err := os.MkdirAll(filepath.Dir(b.outFile), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(b.outFile), "run-")
	if err != nil {
		return err
	}
	b.tmp = tmp
	defer os.RemoveAll(tmp)
	defer b.stopFull()
	bins := []*folioBin{{name: "this", path: b.folio, keysFile: filepath.Join(tmp, "keys.yaml")}}
	if b.against != "" {
		for i, p := range strings.Split(b.against, ",") {
			abs, err := filepath.Abs(p)
			if err != nil {
				return err
			}
			bin := &folioBin{name: fmt.Sprintf("against%d", i+1), path: abs, keysFile: filepath.Join(tmp, fmt.Sprintf("keys-against%d.yaml", i+1)), dropped: map[string]bool{}}
			if bin.flags, err = serveFlags(abs); err != nil {
				return err
			}
			bins = append(bins, bin)
		}
	}
	for _, bin := range bins {
		if bin.key, err = createKey(bin.path, bin.keysFile); err != nil {
			return err
		}
	}
	b.use(bins[0])
	b.client = newClient(4)

	started := time.Now()
	loadBefore := loadAvg()
	steps := map[string]func() error{
		"cold": b.coldStart, "model": b.modelGroup, "push": b.pushToServe, "write": b.writeToServe, "refs": b.refsGroup, "load": b.throughput, "search": b.search, "csearch": b.contentSearch, "fsearch": b.freshSearch,
		"locales":    b.localesGroup,
		"mediastart": b.mediaStart, "mediamigrate": b.mediaMigrate, "derive": b.derivatives, "crop": b.crop, "upload": b.bigUpload, "pdfupload": b.pdfUploads, "worstwrite": b.worstWrites, "spray": b.spray,
		"bucket": b.bucket, "scale": b.scaleGroup,
	}
	for _, g := range groups {
		if len(b.only) > 0 && !b.only[g] || len(b.only) == 0 && contains(explicitOnly, g) {
			continue
		}
		b.logf("== %s", g)
		if b.against != "" {
			b.runAgainst(g, steps[g], bins)
			continue
		}
		if err := steps[g](); err != nil {
			b.logf("%s failed: %v", g, err)
			b.notes = append(b.notes, fmt.Sprintf("**%s failed**: %v", g, err))
		}
		if g == "search" {
			b.stopFull() // idle, but 700 MB and a process the later groups need not share the machine with
		}
	}
	b.stopFull()
	for _, bin := range bins[1:] {
		if len(bin.dropped) == 0 {
			continue
		}
		var names []string
		for n := range bin.dropped {
			names = append(names, "--"+n)
		}
		slices.Sort(names)
		b.notes = append(b.notes, fmt.Sprintf("%s lacks %s: started without", bin.path, strings.Join(names, ", ")))
	}
	report := b.report(args, started, loadBefore, bins)
	fmt.Print(report)
	return os.WriteFile(b.outFile, []byte(report), 0o644)
}

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(b.progress, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

func (b *bench) add(r row) {
	b.rows = append(b.rows, r)
	b.logf("  %s: median %s (min %s, max %s, n=%d)", r.Figure, r.Unit.format(r.Sum.Median), r.Unit.format(r.Sum.Min), r.Unit.format(r.Sum.Max), r.Sum.N)
}

// parseSizes reads a comma-separated list of site sizes.
func parseSizes(flag, list string) ([]int, error) {
	var out []int
	for _, s := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad %s entry %q", flag, s)
		}
		out = append(out, n)
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func findNginx() string {
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx"
	}
	return ""
}

// manifest is what folio-gen writes last into its output directory
// (cmd/folio-gen: Manifest); only the fields used here.
type manifest struct {
	Version     int      `json:"version"`
	Files       int      `json:"files"`
	Media       int      `json:"media"`
	Pages       []string `json:"pages"`
	Posts       []string `json:"posts"`
	MediaIDs    []string `json:"mediaIds"`
	SearchWords []string `json:"searchWords"`
	SiteBytes   int64    `json:"siteBytes"`
	// NoModelCommit is, in a -model site, the commit before the model's.
	NoModelCommit string `json:"noModelCommit"`
}

// dataset returns the directory of generated data, generating it first
// unless a complete copy (one with folio-gen's manifest) is cached.
func (b *bench) dataset(files, mediaN int) (string, manifest, error) {
	if files > 0 {
		return b.generated(fmt.Sprintf("site-n%d-s%d", files, b.seed), siteVersion, "-files", strconv.Itoa(files), "-media", strconv.Itoa(mediaN))
	}
	return b.generated(fmt.Sprintf("media-m%d-s%d", mediaN, b.seed), 0, "-files", "0", "-media", strconv.Itoa(mediaN))
}

// generated returns the directory name under the data directory, running
// folio-gen with args (and the seed) into it first unless a complete copy
// of at least minVersion (its manifest's) is cached, and its manifest.
func (b *bench) generated(name string, minVersion int, args ...string) (string, manifest, error) {
	dir := filepath.Join(b.dataDir, name)
	mf := filepath.Join(dir, ".folio-gen.json")
	if _, err := os.Stat(mf); err != nil || genVersion(mf) < minVersion {
		b.logf("generating %s", name)
		if err := os.RemoveAll(dir); err != nil {
			return "", manifest{}, err
		}
		cmd := exec.Command(b.gen, append([]string{"-out", dir, "-seed", strconv.FormatUint(b.seed, 10), "-bare"}, args...)...)
		cmd.Stdout, cmd.Stderr = b.progress, b.progress
		if err := cmd.Run(); err != nil {
			return "", manifest{}, fmt.Errorf("folio-gen %s: %w", name, err)
		}
	}
	data, err := os.ReadFile(mf)
	if err != nil {
		return "", manifest{}, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return "", manifest{}, fmt.Errorf("%s: %w", mf, err)
	}
	return dir, m, nil
}

// scratchClone clones the generated site in dir (its bare repository)
// into a new scratch directory named name: a bare clone, so that pushes
// never change the cache (a local clone hard-links the pack, so this is
// quick), and with work a clone of that to commit and push from.
func (b *bench) scratchClone(dir, name string, work bool) (tmp, bare, workDir string, err error) {
	if tmp, err = b.scratch(name); err != nil {
		return "", "", "", err
	}
	bare = filepath.Join(tmp, "site.git")
	if err := git("", "clone", "-q", "--bare", filepath.Join(dir, "site.git"), bare); err != nil {
		return "", "", "", err
	}
	if work {
		workDir = filepath.Join(tmp, "work")
		if err := git("", "clone", "-q", bare, workDir); err != nil {
			return "", "", "", err
		}
	}
	return tmp, bare, workDir, nil
}

// siteVersion is the folio-gen version (its manifest's) a site must
// have: 2 gave posts a category and a model declaring it (the filtered
// list of the throughput group needs them). An older site is generated
// again.
const siteVersion = 2

// genVersion is the version a folio-gen manifest records; 0 when it
// cannot be read.
func genVersion(mf string) int {
	data, err := os.ReadFile(mf)
	if err != nil {
		return 0
	}
	var m manifest
	if json.Unmarshal(data, &m) != nil {
		return 0
	}
	return m.Version
}

// scratch returns a new empty directory under the run's temp dir.
func (b *bench) scratch(name string) (string, error) {
	return os.MkdirTemp(b.tmp, name+"-")
}

func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
