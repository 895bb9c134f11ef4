package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/folio-cms/folio/fixtures/testkit"
	"github.com/folio-cms/folio/media/s3/s3test"
)

// Accounts of the IAM gateway: the root account, which owns the bucket and
// writes, and a plain user that the bucket policy lets only read.
const (
	rootAccess   = "folio-root"
	rootSecret   = "folio-root-secret-0123456789"
	readerAccess = "folio-reader"
	readerSecret = "folio-reader-secret-0123456789"
	iamRegion    = "us-east-1"
)

// iamGateway runs versitygw (posix backend) with its internal IAM on
// loopback, so that it knows more accounts than root. s3test's server has
// no IAM; this one is started the same way, with --iam-dir added.
func iamGateway(t *testing.T) (endpoint string) {
	t.Helper()
	bin := s3test.Binary(t)
	dir := t.TempDir()
	for _, d := range []string{"data", "meta", "iam"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The port is free when chosen but may be taken by a test running
	// alongside before versitygw binds it: then try another.
	var addr string
	var err error
	for range 5 {
		if addr, err = startIAMGateway(t, bin, dir); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	endpoint = "http://" + addr
	admin := exec.Command(bin, "admin", "--access", rootAccess, "--secret", rootSecret, "--region", iamRegion, "--endpoint-url", endpoint,
		"create-user", "--access", readerAccess, "--secret", readerSecret, "--role", "user")
	admin.Env = gatewayEnv()
	if out, err := admin.CombinedOutput(); err != nil {
		t.Fatalf("versitygw admin create-user: %v\n%s", err, out)
	}
	return endpoint
}

func s3Client(t *testing.T, endpoint, access, secret string) *minio.Client {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	c, err := minio.New(u.Host, &minio.Options{Creds: credentials.NewStaticV4(access, secret, ""), Region: iamRegion})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// methodCounter is a reverse proxy on loopback that counts the methods of
// the requests it passes to the S3 server. The Host header is passed as it
// came, so SigV4 signatures made for the proxy's address still verify.
type methodCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func (m *methodCounter) seen() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]int{}
	for k, v := range m.counts {
		out[k] = v
	}
	return out
}

func countingProxy(t *testing.T, endpoint string) (*methodCounter, string) {
	t.Helper()
	target, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	m := &methodCounter{counts: map[string]int{}}
	rp := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.counts[r.Method]++
		m.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return m, srv.URL
}

// TestServeReadOnlyS3: a writing box fills a bucket; a read-only box runs
// with the credentials of an account that a bucket policy lets only read
// (s3:GetObject, s3:ListBucket), and serves the items. Its S3 traffic goes
// through a counting proxy, which sees no write request.
func TestServeReadOnlyS3(t *testing.T) {
	endpoint := iamGateway(t)
	const bucket = "folio-ro"
	ctx := context.Background()
	root := s3Client(t, endpoint, rootAccess, rootSecret)
	if err := root.MakeBucket(ctx, bucket, minio.MakeBucketOptions{Region: iamRegion}); err != nil {
		t.Fatal(err)
	}
	policy := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":[%q]},"Action":["s3:ListBucket"],"Resource":["arn:aws:s3:::%s"]},
		{"Effect":"Allow","Principal":{"AWS":[%q]},"Action":["s3:GetObject"],"Resource":["arn:aws:s3:::%s/*"]}]}`,
		readerAccess, bucket, readerAccess, bucket)
	if err := root.SetBucketPolicy(ctx, bucket, policy); err != nil {
		t.Fatalf("set bucket policy: %v", err)
	}

	mediaRoot := filepath.Join(t.TempDir(), "media")
	s3Flags := []string{"--storage", "s3", "--s3-endpoint", endpoint, "--s3-bucket", bucket, "--s3-region", iamRegion, "--media", mediaRoot}
	t.Setenv("AWS_ACCESS_KEY_ID", rootAccess)
	t.Setenv("AWS_SECRET_ACCESS_KEY", rootSecret)
	if _, stderr, err := runCLI(t, append(append([]string{"media", "import"}, s3Flags...), pngFile(t, "lake.png", 600, 400))...); err != nil {
		t.Fatalf("media import to s3: %v\n%s", err, stderr)
	}

	// The reader's credentials can read the bucket and nothing more.
	reader := s3Client(t, endpoint, readerAccess, readerSecret)
	var firstKey string
	for obj := range reader.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
		if obj.Err != nil {
			t.Fatalf("list with the reader's credentials: %v", obj.Err)
		}
		if firstKey == "" {
			firstKey = obj.Key
		}
	}
	if firstKey == "" {
		t.Fatal("the bucket is empty after the import")
	}
	if _, err := reader.PutObject(ctx, bucket, "site/intruder.txt", bytes.NewReader([]byte("x")), 1, minio.PutObjectOptions{}); minio.ToErrorResponse(err).Code != "AccessDenied" {
		t.Fatalf("PUT with the reader's credentials: %v, want AccessDenied: the test needs a read-only account", err)
	}
	if err := reader.RemoveObject(ctx, bucket, firstKey, minio.RemoveObjectOptions{}); minio.ToErrorResponse(err).Code != "AccessDenied" {
		t.Fatalf("DELETE with the reader's credentials: %v, want AccessDenied: the test needs a read-only account", err)
	}

	keys := filepath.Join(t.TempDir(), "keys.yaml")
	key := newKey(t, keys, "all", "content:read,media:read,media:write,media:delete")
	dropWriterLeftovers(t, mediaRoot)
	before := testkit.Tree(t, mediaRoot)
	counter, proxyURL := countingProxy(t, endpoint)
	t.Setenv("AWS_ACCESS_KEY_ID", readerAccess)
	t.Setenv("AWS_SECRET_ACCESS_KEY", readerSecret)
	roFlags := []string{"--storage", "s3", "--s3-endpoint", proxyURL, "--s3-bucket", bucket, "--s3-region", iamRegion, "--media", mediaRoot}
	box := serveBox(t, append([]string{"--read-only", "--site", siteRepo(t), "--keys", keys, "--cache-dir", t.TempDir()}, roFlags...)...)

	var l listed
	box.do(t, "GET", "/api/v1/media", key, "").decode(t, &l)
	if l.Total != 1 || l.Data[0].Filename != "lake.png" || len(l.Data[0].Sizes) == 0 {
		t.Fatalf("list on the read-only box: %+v", l)
	}
	it := l.Data[0]
	if !strings.HasPrefix(it.URL, proxyURL+"/"+bucket+"/") {
		t.Fatalf("item URL %q is not in the bucket behind %s", it.URL, proxyURL)
	}
	// The URL names an object the reader may fetch.
	objKey := strings.TrimPrefix(it.URL, proxyURL+"/"+bucket+"/")
	obj, err := reader.GetObject(ctx, bucket, objKey, minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(obj)
	obj.Close()
	if err != nil || len(body) == 0 {
		t.Fatalf("GET %s with the reader's credentials: %d bytes, %v", objKey, len(body), err)
	}
	var pub struct{ ID, URL string }
	if r := box.do(t, "GET", "/api/v1/public/media/"+it.ID, "", ""); r.status != http.StatusOK {
		t.Fatalf("public item: %d %s", r.status, r.body)
	} else if r.decode(t, &pub); pub.URL != it.URL {
		t.Errorf("public URL %q, want %q", pub.URL, it.URL)
	}
	var st map[string]any
	box.do(t, "GET", "/api/v1/status", key, "").decode(t, &st)
	if st["readOnly"] != true {
		t.Errorf("status readOnly = %v", st["readOnly"])
	}
	box.do(t, "POST", "/api/v1/media/presign", key, `{"filename":"a.png","mimeType":"image/png","size":10}`).wantReadOnly(t, "presign")
	box.do(t, "POST", "/api/v1/media/confirm", key, `{"storageKey":"site/2026/01/a.png","filename":"a.png","mimeType":"image/png","size":10,"folder":"/"}`).wantReadOnly(t, "confirm")
	box.do(t, "DELETE", "/api/v1/media/"+it.ID, key, "").wantReadOnly(t, "DELETE")
	if err := box.stop(); err != nil {
		t.Fatalf("serve: %v\n%s", err, box.log.String())
	}
	for m, n := range counter.seen() {
		if m != http.MethodGet && m != http.MethodHead {
			t.Errorf("the read-only box sent %d %s requests to S3", n, m)
		}
	}
	if d := testkit.DiffTrees(before, testkit.Tree(t, mediaRoot)); len(d) > 0 {
		t.Errorf("the read-only box changed the media root: %v", d)
	}
	t.Logf("S3 requests of the read-only box, by method: %v", counter.seen())
}

// startIAMGateway starts iamGateway's versitygw on a free port of
// loopback and returns its address, or why it did not answer there.
func startIAMGateway(t *testing.T, bin, dir string) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	ln.Close()
	log := &syncBuffer{}
	cmd := exec.Command(bin, "--port", addr, "--access", rootAccess, "--secret", rootSecret, "--region", iamRegion,
		"--iam-dir", filepath.Join(dir, "iam"), "--quiet",
		"posix", "--sidecar", filepath.Join(dir, "meta"), filepath.Join(dir, "data"))
	cmd.Env = gatewayEnv()
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return "", err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	// Wait until it answers at all; the bound is for a gateway that never
	// comes up, not a speed assertion.
	deadline := time.Now().Add(60 * time.Second)
	client := &http.Client{Timeout: time.Second}
	for {
		res, err := client.Get("http://" + addr + "/")
		if err == nil {
			res.Body.Close()
			break
		}
		select {
		case <-exited:
			return "", fmt.Errorf("versitygw exited:\n%s", log.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("versitygw not answering: %v\n%s", err, log.String())
		}
	}
	return addr, nil
}

// gatewayEnv is this process's environment without the gateway's own
// settings (VGW_*, ROOT_*), which versitygw would read.
func gatewayEnv() []string {
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "VGW_") && !strings.HasPrefix(kv, "ROOT_") {
			env = append(env, kv)
		}
	}
	return env
}
