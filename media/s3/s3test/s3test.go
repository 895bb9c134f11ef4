// Package s3test runs a real S3 server, versitygw in posix mode, on
// 127.0.0.1 for tests: the S3 storage's own tests and those of the packages
// above it reuse it.
//
// The binary is found at $FOLIO_VERSITYGW, else at <module root>/.bin/versitygw
// (built by `make versitygw`). When FOLIO_VERSITYGW names no binary the
// test fails; when it is unset and .bin has none, the test is skipped with
// a note (a plain `go test ./...`); FOLIO_SKIP_S3=1 always skips.
package s3test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/folio-cms/folio/media/s3"
)

// Fixed test credentials of the server's root account.
const (
	AccessKey = "folio-test-access"
	SecretKey = "folio-test-secret-key-0123456789"
	Region    = "us-east-1"
	// Prefix is the site prefix of the configurations handed out.
	Prefix = "site"
)

// startTimeout bounds how long a starting server may take to answer before
// the test fails; it is not an assertion about speed.
const startTimeout = 60 * time.Second

// Server is one versitygw process serving a temporary directory. It can be
// stopped and started again on the same address and directory, so that
// tests can watch the storage go away and come back.
type Server struct {
	tb   testing.TB
	bin  string
	dir  string
	addr string
	log  *syncBuffer

	mu      sync.Mutex
	cmd     *exec.Cmd
	exited  chan struct{}
	buckets int
}

// Start starts a server and returns the configuration of a fresh bucket on
// it, with the site prefix Prefix. The server stops at the end of the test;
// stop stops it earlier.
func Start(tb testing.TB) (cfg s3.Config, stop func()) {
	tb.Helper()
	srv := NewServer(tb)
	return srv.NewBucket(tb), srv.Stop
}

// NewServer starts a server that stops at the end of the test.
func NewServer(tb testing.TB) *Server {
	tb.Helper()
	bin := Binary(tb)
	s := &Server{tb: tb, bin: bin, dir: tb.TempDir(), log: &syncBuffer{}}
	tb.Cleanup(s.Stop)
	// The port is free when chosen but may be taken before versitygw binds
	// it; then try another.
	var err error
	for range 5 {
		s.addr, err = freeAddr()
		if err != nil {
			tb.Fatalf("s3test: %v", err)
		}
		if err = s.start(); err == nil {
			return s
		}
	}
	tb.Fatalf("s3test: %v", err)
	return nil
}

// Binary returns the path of the versitygw binary. With FOLIO_VERSITYGW
// set (as `make test` does) a missing binary fails the test; without it,
// the test is skipped when <module root>/.bin/versitygw is not there, with
// a note on how to run it, so that a plain `go test ./...` passes.
// FOLIO_SKIP_S3=1 skips the S3 tests whatever is installed.
func Binary(tb testing.TB) string {
	tb.Helper()
	if os.Getenv("FOLIO_SKIP_S3") == "1" {
		tb.Skip("s3test: FOLIO_SKIP_S3=1")
	}
	bin := os.Getenv("FOLIO_VERSITYGW")
	if bin != "" {
		if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
			tb.Fatalf("s3test: FOLIO_VERSITYGW=%s: no such binary: run `make versitygw`", bin)
		}
		return bin
	}
	root, err := moduleRoot()
	if err != nil {
		tb.Fatalf("s3test: %v", err)
	}
	bin = filepath.Join(root, ".bin", "versitygw")
	if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
		tb.Skipf("s3test: skipped, no versitygw at %s: run `make versitygw` then `make test` (or set FOLIO_VERSITYGW to the binary) to run the S3 tests", bin)
	}
	return bin
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// Endpoint is the server's base URL.
func (s *Server) Endpoint() string { return "http://" + s.addr }

// Dir is the directory the server keeps buckets in, one subdirectory each;
// an object is the file <Dir>/<bucket>/<object key>.
func (s *Server) Dir() string { return filepath.Join(s.dir, "data") }

// Config is a configuration for bucket on this server, with prefix Prefix.
func (s *Server) Config(bucket string) s3.Config {
	return s3.Config{
		Endpoint:  s.Endpoint(),
		Bucket:    bucket,
		Region:    Region,
		Prefix:    Prefix,
		AccessKey: AccessKey,
		SecretKey: SecretKey,
	}
}

// NewBucket creates an empty bucket and returns its configuration.
func (s *Server) NewBucket(tb testing.TB) s3.Config {
	tb.Helper()
	s.mu.Lock()
	s.buckets++
	bucket := "folio-test-" + strconv.Itoa(s.buckets)
	s.mu.Unlock()
	client, err := minio.New(s.addr, &minio.Options{
		Creds:  credentials.NewStaticV4(AccessKey, SecretKey, ""),
		Region: Region,
	})
	if err != nil {
		tb.Fatalf("s3test: %v", err)
	}
	if err := client.MakeBucket(context.Background(), bucket, minio.MakeBucketOptions{Region: Region}); err != nil {
		tb.Fatalf("s3test: make bucket %s: %v\nversitygw log:\n%s", bucket, err, s.log.String())
	}
	return s.Config(bucket)
}

// Open returns the storage of cfg and its state store at the default
// state prefix, as `folio serve --storage s3` opens them.
func Open(tb testing.TB, cfg s3.Config) (*s3.Storage, *s3.State) {
	tb.Helper()
	st, err := s3.New(cfg)
	if err != nil {
		tb.Fatalf("s3test: %v", err)
	}
	state, err := st.State(s3.DefaultStatePrefix(cfg.Prefix))
	if err != nil {
		tb.Fatalf("s3test: %v", err)
	}
	return st, state
}

// Start starts a stopped server again, on the same address and directory.
func (s *Server) Start() {
	s.tb.Helper()
	if err := s.start(); err != nil {
		s.tb.Fatalf("s3test: restart: %v", err)
	}
}

func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return errors.New("server already running")
	}
	data, meta := filepath.Join(s.dir, "data"), filepath.Join(s.dir, "meta")
	for _, d := range []string{data, meta} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	// Metadata (content types) go to a sidecar directory rather than to
	// extended attributes, which some file systems (tmpfs before Linux 6.6)
	// lack.
	cmd := exec.Command(s.bin,
		"--port", s.addr,
		"--access", AccessKey,
		"--secret", SecretKey,
		"--region", Region,
		"--quiet",
		"posix", "--sidecar", meta, data)
	// The gateway reads settings from VGW_* and ROOT_* variables too: keep
	// a developer's own gateway settings out of the tests. (A nil Env
	// would inherit everything.)
	cmd.Env = []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "VGW_") && !strings.HasPrefix(kv, "ROOT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Stdout = s.log
	cmd.Stderr = s.log
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	if err := waitReady(s.addr, exited); err != nil {
		cmd.Process.Kill()
		<-exited
		return fmt.Errorf("versitygw on %s: %v\nlog:\n%s", s.addr, err, s.log.String())
	}
	s.cmd, s.exited = cmd, exited
	return nil
}

// waitReady polls until the server answers HTTP at all (an unsigned request
// gets a 403), the process exits, or startTimeout passes.
func waitReady(addr string, exited <-chan struct{}) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(startTimeout)
	for {
		resp, err := client.Get("http://" + addr + "/")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-exited:
			return errors.New("exited before answering")
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not answering after %v: %v", startTimeout, err)
		}
	}
}

// Stop kills the server, as a crash or a network cut would look to a
// client. Stopping a stopped server does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	<-s.exited
	s.cmd, s.exited = nil, nil
}

// Log is what the server wrote so far.
func (s *Server) Log() string { return s.log.String() }

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
