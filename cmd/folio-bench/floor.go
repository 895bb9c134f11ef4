package main

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The floor is the least a Go net/http server can do for the page: a
// handler that writes the same bytes (the gzip ones when asked) with a
// fixed Content-Type and Content-Length, without routing, key check,
// headers of its own or a heap to speak of. It runs in a process of its
// own (this binary, with floorArg first) and is loaded like folio and
// nginx, in the same rounds; the distance from it to nginx is what
// net/http and the Go runtime cost on this machine, whatever folio's
// handlers do (docs/performance.md, "The p99 under saturation").
const floorArg = "floor-server"

// serveFloor is the floor process: args are the address, the body file
// and the gzip body file.
func serveFloor(args []string) error {
	if len(args) != 3 {
		return errors.New("floor-server: want addr, body file, gzip file")
	}
	body, err := os.ReadFile(args[1])
	if err != nil {
		return err
	}
	gz, err := os.ReadFile(args[2])
	if err != nil {
		return err
	}
	srv := &http.Server{Addr: args[0], Handler: floorHandler(body, gz), ReadHeaderTimeout: 10 * time.Second}
	return srv.ListenAndServe()
}

// floorHandler answers every request with body, or gz when the client
// accepts gzip.
func floorHandler(body, gz []byte) http.Handler {
	json, gzip := []string{"application/json"}, []string{"gzip"}
	blen, gzlen := []string{strconv.Itoa(len(body))}, []string{strconv.Itoa(len(gz))}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hdr := w.Header()
		hdr["Content-Type"] = json
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			hdr["Content-Encoding"], hdr["Content-Length"] = gzip, gzlen
			w.Write(gz)
			return
		}
		hdr["Content-Length"] = blen
		w.Write(body)
	})
}

// startFloor starts the floor server with the bodies nginx serves.
func (b *bench) startFloor(body, gz []byte, urlPath string) (*server, error) {
	dir, err := b.scratch("floor")
	if err != nil {
		return nil, err
	}
	bf, gf := filepath.Join(dir, "body"), filepath.Join(dir, "body.gz")
	if err := os.WriteFile(bf, body, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(gf, gz, 0o644); err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	return b.startServing(self, []string{floorArg, addr, bf, gf}, "http://"+addr, filepath.Join(dir, "log"), urlPath)
}
