package ctxio

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReader(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := Reader(ctx, strings.NewReader("hello world"))
	buf := make([]byte, 5)
	if n, err := r.Read(buf); n != 5 || err != nil {
		t.Fatalf("read before cancel: %d %v", n, err)
	}
	cancel()
	if _, err := io.ReadAll(r); !errors.Is(err, context.Canceled) {
		t.Fatalf("read after cancel: %v", err)
	}
}
