package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// allScopes is every scope, so one key drives every endpoint.
const allScopes = "content:read,content:draft,media:read,media:write,media:delete,content:write"

// createKey writes a fresh keys file and returns the key's secret, which
// `folio keys create` prints on the last line of its stdout. An older
// release that refuses a scope it does not know gets those it lists.
func createKey(folio, keysFile string) (string, error) {
	key, err := createKeyScopes(folio, keysFile, allScopes)
	var known *unknownScope
	if errors.As(err, &known) {
		var keep []string
		for _, s := range strings.Split(allScopes, ",") {
			if slices.Contains(known.have, s) {
				keep = append(keep, s)
			}
		}
		return createKeyScopes(folio, keysFile, strings.Join(keep, ","))
	}
	return key, err
}

// unknownScope is `folio keys create` refusing a scope; have are the
// scopes it named.
type unknownScope struct {
	msg  string
	have []string
}

func (e *unknownScope) Error() string { return e.msg }

var scopeList = regexp.MustCompile(`unknown scope .*\(scopes: ([a-z:, ]+)\)`)

func createKeyScopes(folio, keysFile, scopes string) (string, error) {
	cmd := exec.Command(folio, "keys", "create", "--keys", keysFile, "--name", "bench", "--scopes", scopes)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := fmt.Sprintf("folio keys create: %v: %s", err, strings.TrimSpace(errb.String()))
		if m := scopeList.FindStringSubmatch(errb.String()); m != nil {
			return "", &unknownScope{msg: msg, have: strings.Split(strings.ReplaceAll(m[1], " ", ""), ",")}
		}
		return "", errors.New(msg)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	key := strings.TrimSpace(lines[len(lines)-1])
	if key == "" {
		return "", errors.New("folio keys create printed no key")
	}
	return key, nil
}

// freePort asks the kernel for a free loopback port. Another process could
// take it before folio binds it; on this machine that is a rare failure
// that shows up as a start error, not as a wrong figure.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// serveOpts are the arguments of one `folio serve`.
type serveOpts struct {
	Site, Media, CacheDir string
	// Log is where folio's stdout and stderr go (appended).
	Log string
	// Args are more flags (the --storage s3 ones, --read-only); Env is
	// added to the environment (S3 credentials).
	Args, Env []string
}

// server is a running folio (or nginx) process.
type server struct {
	cmd     *exec.Cmd
	base    string // http://127.0.0.1:port
	started time.Time
	logf    *os.File
	done    chan error
	stopped bool
}

func (b *bench) startFolio(o serveOpts) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	args := []string{"serve", "--site", o.Site, "--keys", b.keysFile, "--media", o.Media,
		"--cache-dir", o.CacheDir, "--addr", addr, "--rate-ip", "0", "--rate-key", "0", "--log-level", "warn"}
	return startProcessEnv(b.folio, b.cur.keepFlags(append(args, o.Args...)), o.Env, "http://"+addr, o.Log)
}

func startProcess(bin string, args []string, base, logPath string) (*server, error) {
	return startProcessEnv(bin, args, nil, base, logPath)
}

// startProcessEnv starts bin with env added to the bench's environment.
func startProcessEnv(bin string, args, env []string, base, logPath string) (*server, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	s := &server{cmd: cmd, base: base, logf: logf, done: make(chan error, 1)}
	s.started = time.Now()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	go func() { s.done <- cmd.Wait() }()
	return s, nil
}

// startServing starts a server that needs no key (nginx, the floor) and
// waits until GET base+path answers 200, 10 s at the most.
func (b *bench) startServing(bin string, args []string, base, logPath, path string) (*server, error) {
	s, err := startProcess(bin, args, base, logPath)
	if err != nil {
		return nil, err
	}
	if _, err := s.waitReady(b.client, path, "", 10*time.Second); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// waitReady polls GET base+path (with key, if any) until it answers 200,
// and returns the time since the process was started. It polls every
// millisecond: a coarser poll would add its own delay to the figure.
func (s *server) waitReady(client *http.Client, path, key string, limit time.Duration) (time.Duration, error) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			s.done <- err
			return 0, fmt.Errorf("process exited before it was ready: %v (log: %s)", err, s.logf.Name())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		req, _ := http.NewRequestWithContext(ctx, "GET", s.base+path, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := client.Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				cancel()
				return time.Since(s.started), nil
			}
		}
		cancel()
		time.Sleep(time.Millisecond)
	}
	return 0, fmt.Errorf("not ready after %s (log: %s)", limit, s.logf.Name())
}

// stop ends the process: SIGTERM, then SIGKILL after five seconds. A
// second stop does nothing.
func (s *server) stop() { s.stopWithin(5 * time.Second) }

// stopWithin is stop with a grace of d before SIGKILL: folio writes its
// parse cache when it exits, which a restart measured next needs (at
// 100k files on a loaded machine that took more than 5 s).
func (s *server) stopWithin(d time.Duration) {
	if s.cmd.Process == nil || s.stopped {
		return
	}
	s.stopped = true
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(d):
		s.cmd.Process.Kill()
		<-s.done
	}
	s.logf.Close()
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// procStatus reads a kB field of /proc/<pid>/status ("VmHWM", "VmRSS") in MB.
func procStatus(pid int, field string) (float64, error) {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 64)
		if err != nil {
			return 0, err
		}
		return kb / 1024, nil
	}
	return 0, fmt.Errorf("/proc/%d/status has no %s", pid, field)
}

// resetPeak resets the process's VmHWM to its current RSS (Linux
// clear_refs "5"), so a later VmHWM is the peak of what happened since.
func resetPeak(pid int) error {
	return os.WriteFile(filepath.Join("/proc", strconv.Itoa(pid), "clear_refs"), []byte("5"), 0)
}

// userHZ is the unit of the CPU times of /proc/<pid>/stat (USER_HZ, 100
// on every Linux this runs on).
const userHZ = 100

// cpuTime is the CPU time (user and system, all threads) that process pid
// and its child processes (nginx's workers) have used so far.
func cpuTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(data, ')')
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, _ := strconv.ParseInt(f[12], 10, 64) // field 15
	total := time.Duration(utime+stime) * time.Second / userHZ
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	for _, t := range tasks {
		kids, _ := os.ReadFile(t)
		for _, k := range strings.Fields(string(kids)) {
			if kp, err := strconv.Atoi(k); err == nil {
				c, err := cpuTime(kp)
				if err == nil {
					total += c
				}
			}
		}
	}
	return total, nil
}
