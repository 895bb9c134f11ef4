package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/folio-cms/folio/fixtures/testkit"
)

// A private remote is fetched and pushed to with one set of credentials
// (package gitauth): a token over HTTP (git's http-backend behind nginx
// with basic auth), an SSH key (sshd on 127.0.0.1). The token is never in
// the log, an error, /api/v1/status or the metrics.

const secretToken = "s3cr3t-t0ken-4f9a"

// tool finds a program of a package the test needs, or skips it (fails
// it in CI, where .ci/run installs the package).
func tool(t *testing.T, name, pkg string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if p := "/usr/sbin/" + name; fileExists(p) {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not installed; .ci/run installs %s", name, pkg)
	}
	t.Skipf("%s is not installed: apt-get install %s to run this test (CI installs it)", name, pkg)
	return ""
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startDaemon runs a server until the test ends, with its output kept
// for a failure's log.
func startDaemon(t *testing.T, name string, args ...string) *bytes.Buffer {
	t.Helper()
	cmd := exec.Command(name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s:\n%s", filepath.Base(name), out.String())
		}
	})
	return &out
}

// startGitHTTP serves the bare repositories of repos over HTTP with
// git's http-backend (through fcgiwrap) behind nginx, which asks for
// basic auth: user and password. It returns the base URL.
func startGitHTTP(t *testing.T, repos, user, password string) string {
	t.Helper()
	nginx := tool(t, "nginx", "nginx-light")
	fcgi := tool(t, "fcgiwrap", "fcgiwrap")
	backend := "/usr/lib/git-core/git-http-backend"
	if out, err := exec.Command("git", "--exec-path").Output(); err == nil {
		backend = filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "fcgi.sock")
	startDaemon(t, fcgi, "-c", "2", "-s", "unix:"+sock)
	if err := os.WriteFile(filepath.Join(dir, "htpasswd"), []byte(user+":{PLAIN}"+password+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	runAs := ""
	if os.Geteuid() == 0 {
		runAs = "user root;"
	}
	conf := fmt.Sprintf(`%[1]s
worker_processes 1;
daemon off;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log info;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path %[2]s/body;
  proxy_temp_path %[2]s/proxy;
  fastcgi_temp_path %[2]s/fastcgi;
  uwsgi_temp_path %[2]s/uwsgi;
  scgi_temp_path %[2]s/scgi;
  client_max_body_size 0;
  server {
    listen %[3]s;
    location / {
      auth_basic "git";
      auth_basic_user_file %[2]s/htpasswd;
      fastcgi_pass unix:%[4]s;
      fastcgi_param SCRIPT_FILENAME %[5]s;
      fastcgi_param GIT_PROJECT_ROOT %[6]s;
      fastcgi_param GIT_HTTP_EXPORT_ALL "";
      fastcgi_param PATH_INFO $uri;
      fastcgi_param REMOTE_USER $remote_user;
      fastcgi_param REQUEST_METHOD $request_method;
      fastcgi_param QUERY_STRING $query_string;
      fastcgi_param CONTENT_TYPE $content_type;
      fastcgi_param CONTENT_LENGTH $content_length;
      fastcgi_param HTTP_CONTENT_ENCODING $http_content_encoding;
      fastcgi_param GIT_PROTOCOL $http_git_protocol;
    }
  }
}
`, runAs, dir, addr, sock, backend, repos)
	cfg := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	startDaemon(t, nginx, "-p", dir, "-c", cfg, "-e", filepath.Join(dir, "error.log"))
	base := "http://" + addr
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if res, err := http.Get(base + "/"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusUnauthorized {
				return base
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx did not start\n%s", b)
		}
	}
}

// privateRemote is a bare repository of a site (theme-example: its
// site in exampleSite/) in a folder of repositories.
func privateRemote(t *testing.T) (repos, bare string) {
	t.Helper()
	src := layoutRepo(t, "theme-example")
	repos = t.TempDir()
	bare = filepath.Join(repos, "site.git")
	testkit.Git(t, repos, "clone", "-q", "--bare", src, bare)
	return repos, bare
}

// writeThrough serves the remote, writes an item through the write
// API, and checks that the remote has it; it returns the box's log and
// what /api/v1/status and the metrics said.
func writeThrough(t *testing.T, bare string, args ...string) string {
	t.Helper()
	keys := filepath.Join(t.TempDir(), "keys.yaml")
	key := newKey(t, keys, "w", "content:read,content:write")
	metrics := freeAddr(t)
	box := serveBox(t, append([]string{"--root", "exampleSite", "--media", t.TempDir(), "--keys", keys, "--cache-dir", t.TempDir(), "--metrics-addr", metrics, "--log-level", "debug"}, args...)...)
	if r := box.do(t, "GET", "/api/v1/pages/about", key, ""); r.status != 200 {
		t.Fatalf("GET about: %d %s", r.status, r.body)
	}
	if r := box.do(t, "POST", "/api/v1/content/post", key, `{"title": "Private", "slug": "private", "body": "Hi."}`); r.status != 201 {
		t.Fatalf("POST: %d %s\n%s", r.status, r.body, box.log.String())
	}
	if out := testkit.Git(t, bare, "show", "--name-only", "--format=", "main"); strings.TrimSpace(out) != "exampleSite/content/post/private.md" {
		t.Errorf("the remote's main changed %q", out)
	}
	said := box.log.String()
	st := box.do(t, "GET", "/api/v1/status", key, "")
	said += string(st.body)
	res, err := http.Get("http://" + metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	said += string(b)
	if err := box.stop(); err != nil {
		t.Fatal(err)
	}
	return said + box.log.String()
}

func noSecret(t *testing.T, where, s string) {
	t.Helper()
	if strings.Contains(s, secretToken) {
		t.Errorf("%s holds the token:\n%s", where, s)
	}
}

// TestPrivateRemoteHTTP: an https remote that wants basic auth is
// fetched and pushed to with a token of --git-token-file, of
// FOLIO_GIT_TOKEN, or of the --site URL (https://user:token@…), and the
// token shows nowhere; a wrong one fails the start with an error that
// does not show it either.
func TestPrivateRemoteHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("starts nginx and fcgiwrap")
	}
	repos, bare := privateRemote(t)
	base := startGitHTTP(t, repos, "bob", secretToken)
	site := base + "/site.git"

	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(secretToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	noSecret(t, "--git-token-file: the log, status or metrics", writeThrough(t, bare, "--site", site, "--git-token-file", tokenFile, "--git-user", "bob"))

	u := strings.Replace(site, "http://", "http://bob:"+secretToken+"@", 1)
	testkit.Git(t, bare, "reset", "--soft", "main~1") // the same write again
	noSecret(t, "the --site URL's token: the log, status or metrics", writeThrough(t, bare, "--site", u))

	t.Run("env", func(t *testing.T) {
		testkit.Git(t, bare, "reset", "--soft", "main~1")
		t.Setenv(gitTokenEnv, secretToken)
		noSecret(t, "FOLIO_GIT_TOKEN: the log, status or metrics", writeThrough(t, bare, "--site", site, "--git-user", "bob"))
	})

	// A wrong token: the start fails, saying why, without the token.
	wrong := strings.Replace(site, "http://", "http://bob:"+secretToken+"-old@", 1)
	_, said, err := runCLI(t, "check", "--site", wrong, "--cache-dir", t.TempDir())
	if err == nil {
		t.Fatal("a wrong token: check succeeded")
	}
	noSecret(t, "the error of a wrong token", err.Error()+said)
	if !strings.Contains(err.Error(), "source: fetch http://bob@") {
		t.Errorf("the error does not say what failed: %v", err)
	}
	// No credentials at all: git's prompt is off, the fetch fails.
	if _, _, err := runCLI(t, "check", "--site", site, "--cache-dir", t.TempDir()); err == nil || !strings.Contains(err.Error(), "source: fetch") {
		t.Errorf("no credentials: %v", err)
	}
}

// TestPrivateRemoteSSH: an SSH remote (sshd on 127.0.0.1 that takes one
// key) is fetched and pushed to with --ssh-key and --ssh-known-hosts.
func TestPrivateRemoteSSH(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts sshd")
	}
	sshd := tool(t, "sshd", "openssh-server")
	keygen := tool(t, "ssh-keygen", "openssh-client")
	_, bare := privateRemote(t)
	dir := t.TempDir()
	for _, k := range []string{"host", "client", "other"} {
		if out, err := exec.Command(keygen, "-q", "-t", "ed25519", "-N", "", "-C", k, "-f", filepath.Join(dir, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v %s", err, out)
		}
	}
	pub, err := os.ReadFile(filepath.Join(dir, "client.pub"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	host, port, _ := net.SplitHostPort(addr)
	hostPub, err := os.ReadFile(filepath.Join(dir, "host.pub"))
	if err != nil {
		t.Fatal(err)
	}
	known := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(known, []byte(fmt.Sprintf("[%s]:%s %s", host, port, hostPub)), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf(`ListenAddress %s
Port %s
HostKey %s/host
PidFile %s/sshd.pid
AuthorizedKeysFile %s/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
LogLevel VERBOSE
`, host, port, dir, dir, dir)
	if err := os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		// sshd's privilege separation folder, as its package's service
		// makes it.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatal(err)
		}
	}
	startDaemon(t, sshd, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("sshd did not start")
		}
	}
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	site := fmt.Sprintf("ssh://%s@%s:%s%s", me.Username, host, port, bare)
	writeThrough(t, bare, "--site", site, "--ssh-key", filepath.Join(dir, "client"), "--ssh-known-hosts", known)

	// Another key is refused: the start fails.
	if _, _, err := runCLI(t, "check", "--site", site, "--cache-dir", t.TempDir(), "--ssh-key", filepath.Join(dir, "other"), "--ssh-known-hosts", known); err == nil || !strings.Contains(err.Error(), "source: fetch") {
		t.Errorf("another key: %v", err)
	}
}
