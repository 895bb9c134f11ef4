package s3_test

import (
	"testing"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/s3"
	"github.com/folio-cms/folio/media/s3/s3test"
	"github.com/folio-cms/folio/media/storagetest"
)

func mustNew(tb testing.TB, cfg s3.Config) *s3.Storage {
	tb.Helper()
	s, err := s3.New(cfg)
	if err != nil {
		tb.Fatalf("s3.New: %v", err)
	}
	return s
}

func TestStorage_Conformance(t *testing.T) {
	srv := s3test.NewServer(t)
	storagetest.Run(t, func(t *testing.T) media.Storage {
		return mustNew(t, srv.NewBucket(t))
	})
}
