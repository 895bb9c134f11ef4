package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/folio-cms/folio/fixtures/testkit"
	"github.com/folio-cms/folio/media/derive"
)

// buildTags are the tags this test binary was built with, as far as they
// change what folio links against: a release build of the same tags is
// what the tests below look at.
func buildTags() []string {
	var tags []string
	if derive.JPEGDecoder == "libjpeg-turbo" {
		tags = append(tags, "libjpeg")
	}
	if derive.AVIF {
		tags = append(tags, "libavif")
	}
	return tags
}

// releaseFlags are the go build flags of make build: the tags, and a
// version and commit through -ldflags -X. The binary of these flags is the
// one every test of the package that runs folio as a process uses
// (testkit.BuildFolio links it once per test binary).
func releaseFlags() []string {
	return []string{"-tags", strings.Join(buildTags(), ","),
		"-ldflags", "-X main.version=" + releaseVersion + " -X main.commit=" + releaseCommit}
}

const releaseVersion, releaseCommit = "v9.8.7-test", "0123456789abcdef"

// buildFolio is the folio binary of releaseFlags.
func buildFolio(t *testing.T) string {
	t.Helper()
	return testkit.BuildFolio(t, releaseFlags()...)
}

// TestMain removes the folio binaries the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	testkit.RemoveBuilds()
	os.Exit(code)
}

// TestReleaseBinary builds folio the way make build and make dist do and
// checks what a user of the release sees: `folio version`, and the shared
// libraries the binary needs against docs/deploy.md.
func TestReleaseBinary(t *testing.T) {
	t.Parallel()
	tags := buildTags()
	bin := buildFolio(t)

	t.Run("version", func(t *testing.T) {
		out, err := exec.Command(bin, "version").Output()
		if err != nil {
			t.Fatalf("folio version: %v", err)
		}
		want := []string{
			"folio " + releaseVersion + "\n",
			"commit:        " + releaseCommit + "\n",
			"go:            " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ", cgo on\n",
			"JPEG decoder:  " + derive.JPEGDecoder + "\n",
		}
		if len(tags) > 0 {
			want = append(want, "build tags:    "+strings.Join(tags, ",")+"\n")
		} else {
			want = append(want, "build tags:    none\n")
		}
		for _, w := range want {
			if !strings.Contains(string(out), w) {
				t.Errorf("folio version lacks %q:\n%s", w, out)
			}
		}
	})

	t.Run("ldd", func(t *testing.T) { checkRuntimePackages(t, bin, tags) })
}

// runtimeRow is one row of docs/deploy.md's runtime library table.
type runtimeRow struct {
	lib, pkg, neededBy string
}

// needed says whether a build of tags on arch needs the row's library.
func (r runtimeRow) needed(tags []string, arch string) bool {
	if strings.Contains(r.neededBy, "(amd64)") && arch != "amd64" ||
		strings.Contains(r.neededBy, "(arm64)") && arch != "arm64" {
		return false
	}
	if strings.HasPrefix(r.neededBy, "every build") {
		return true
	}
	for _, tag := range tags {
		if strings.Contains(r.neededBy, "`"+tag+"` tag") {
			return true
		}
	}
	return false
}

var tableCell = regexp.MustCompile("`([^`]+)`")

// deployDoc reads docs/deploy.md's runtime library table.
func deployDoc(t *testing.T) []runtimeRow {
	t.Helper()
	path := filepath.Join(testkit.ModuleRoot(t), "docs", "deploy.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	begin := strings.Index(text, "<!-- runtime-libraries:begin -->")
	end := strings.Index(text, "<!-- runtime-libraries:end -->")
	if begin < 0 || end < begin {
		t.Fatalf("%s: no runtime-libraries table", path)
	}
	var rows []runtimeRow
	for _, line := range strings.Split(text[begin:end], "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		lib, pkg := tableCell.FindStringSubmatch(cells[1]), tableCell.FindStringSubmatch(cells[2])
		if lib == nil || pkg == nil {
			t.Fatalf("%s: malformed row %q", path, line)
		}
		rows = append(rows, runtimeRow{lib: lib[1], pkg: pkg[1], neededBy: strings.TrimSpace(cells[3])})
	}
	if len(rows) == 0 {
		t.Fatalf("%s: the runtime-libraries table has no rows", path)
	}
	return rows
}

// checkRuntimePackages compares ldd's view of bin with the documented
// table, each library's package as dpkg knows it, and the Dockerfile's
// package list.
func checkRuntimePackages(t *testing.T, bin string, tags []string) {
	rows := deployDoc(t)
	ldd, err := exec.LookPath("ldd")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no ldd: %v", err)
		}
		t.Skipf("no ldd to list folio's shared libraries (Debian: libc-bin)")
	}
	out, err := exec.Command(ldd, bin).CombinedOutput()
	if err != nil {
		t.Fatalf("ldd %s: %v\n%s", bin, err, out)
	}
	got := map[string]string{} // soname -> resolved path
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "linux-vdso") {
			continue
		}
		name, path := filepath.Base(fields[0]), fields[0]
		if len(fields) >= 3 && fields[1] == "=>" {
			path = fields[2]
		}
		if path == "not" || strings.Contains(sc.Text(), "not found") {
			t.Errorf("ldd: %s is not found on this machine", name)
		}
		got[name] = path
	}
	want := map[string]runtimeRow{}
	for _, r := range rows {
		if r.needed(tags, runtime.GOARCH) {
			want[r.lib] = r
		}
	}
	for lib := range got {
		if _, ok := want[lib]; !ok {
			t.Errorf("ldd shows %s, which docs/deploy.md does not list for a build with tags %v", lib, tags)
		}
	}
	for lib := range want {
		if _, ok := got[lib]; !ok {
			t.Errorf("docs/deploy.md lists %s for a build with tags %v, but ldd does not show it", lib, tags)
		}
	}

	if dpkg, err := exec.LookPath("dpkg"); err == nil {
		owners := dpkgOwners(dpkg, got)
		for lib := range got {
			row, ok := want[lib]
			if !ok {
				continue
			}
			if pkg := owners[lib]; pkg == "" {
				t.Errorf("dpkg -S: no package owns %s (%s)", lib, got[lib])
			} else if pkg != row.pkg {
				t.Errorf("%s belongs to %s, docs/deploy.md says %s", lib, pkg, row.pkg)
			}
		}
	} else {
		t.Logf("no dpkg: the packages of the libraries are not checked")
	}

	// The Dockerfile installs exactly the documented packages,
	// ca-certificates, git (the fetch of a remote site and the content
	// write API) and openssh-client (an SSH remote).
	docPkgs := map[string]bool{"ca-certificates": true, "git": true, "openssh-client": true}
	for _, r := range rows {
		docPkgs[r.pkg] = true
	}
	dockerPkgs := dockerfilePackages(t)
	if strings.Join(sortedKeys(dockerPkgs), " ") != strings.Join(sortedKeys(docPkgs), " ") {
		t.Errorf("docs/deploy/Dockerfile installs %v; docs/deploy.md lists %v (and ca-certificates, git, openssh-client)",
			sortedKeys(dockerPkgs), sortedKeys(docPkgs))
	}
}

// dpkgOwners names the package that owns each library, in one call of
// dpkg -S over the paths as ldd printed them and with their symbolic
// links resolved (Debian's merged /usr lists files under /usr/lib).
func dpkgOwners(dpkg string, libs map[string]string) map[string]string {
	byPath := map[string]string{} // candidate path -> soname
	var args []string
	for lib, path := range libs {
		candidates := []string{path, filepath.Join("/usr", path)}
		if real, err := filepath.EvalSymlinks(path); err == nil {
			candidates = append(candidates, real, filepath.Join("/usr", real))
		}
		for _, c := range candidates {
			if _, dup := byPath[c]; !dup {
				byPath[c] = lib
				args = append(args, c)
			}
		}
	}
	out, _ := exec.Command(dpkg, append([]string{"-S"}, args...)...).Output() // exits 1 when a candidate is unknown
	owners := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		pkgs, path, ok := strings.Cut(line, ": ")
		lib, known := byPath[strings.TrimSpace(path)]
		if !ok || !known || owners[lib] != "" {
			continue
		}
		pkg, _, _ := strings.Cut(strings.Split(pkgs, ", ")[0], ":") // libc6:amd64
		owners[lib] = pkg
	}
	return owners
}

// dockerfilePackages reads the packages of docs/deploy/Dockerfile's
// apt-get install.
func dockerfilePackages(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testkit.ModuleRoot(t), "docs", "deploy", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	pkgs := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		_, rest, ok := strings.Cut(line, "apt-get install")
		if !ok {
			continue
		}
		rest, _, _ = strings.Cut(rest, "&&")
		for _, f := range strings.Fields(rest) {
			if !strings.HasPrefix(f, "-") {
				pkgs[f] = true
			}
		}
	}
	if len(pkgs) == 0 {
		t.Fatal("docs/deploy/Dockerfile: no apt-get install")
	}
	return pkgs
}

func sortedKeys(m map[string]bool) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestDeploySystemdUnit checks docs/deploy/folio.service with
// systemd-analyze verify (its ExecStart pointed at a real binary), where
// systemd is installed.
func TestDeploySystemdUnit(t *testing.T) {
	t.Parallel()
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("no systemd-analyze (Debian: systemd): the unit file is not verified")
	}
	unit, err := os.ReadFile(filepath.Join(testkit.ModuleRoot(t), "docs", "deploy", "folio.service"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(unit), "ExecStart=/usr/local/bin/folio serve") {
		t.Fatal("folio.service: no ExecStart=/usr/local/bin/folio serve")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "folio.service")
	text := strings.Replace(string(unit), "ExecStart=/usr/local/bin/folio", "ExecStart="+self, 1)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	if err != nil || strings.Contains(string(out), "folio.service") {
		t.Fatalf("systemd-analyze verify folio.service: %v\n%s", err, out)
	}
}
