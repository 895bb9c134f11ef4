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

func TestConfig_Validate(t *testing.T) {
	good := s3.Config{
		Endpoint:  "http://127.0.0.1:7070/",
		Bucket:    "media",
		Prefix:    "/mysite/",
		AccessKey: "a",
		SecretKey: "s",
	}
	t.Run("Defaults", func(t *testing.T) {
		cfg := good
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		if got, want := cfg.Endpoint, "http://127.0.0.1:7070"; got != want {
			t.Errorf("Endpoint = %q, want %q", got, want)
		}
		if got, want := cfg.Region, "us-east-1"; got != want {
			t.Errorf("Region = %q, want %q", got, want)
		}
		if got, want := cfg.Prefix, "mysite"; got != want {
			t.Errorf("Prefix = %q, want %q", got, want)
		}
		if got, want := cfg.PublicURL, "http://127.0.0.1:7070/media"; got != want {
			t.Errorf("PublicURL = %q, want %q", got, want)
		}
		if cfg.MaxRetries != s3.DefaultMaxRetries {
			t.Errorf("MaxRetries = %d, want %d", cfg.MaxRetries, s3.DefaultMaxRetries)
		}
	})
	for _, tc := range []struct {
		name string
		edit func(*s3.Config)
	}{
		{"NoEndpoint", func(c *s3.Config) { c.Endpoint = "" }},
		{"EndpointNoScheme", func(c *s3.Config) { c.Endpoint = "127.0.0.1:7070" }},
		{"EndpointFTP", func(c *s3.Config) { c.Endpoint = "ftp://127.0.0.1" }},
		{"EndpointNoHost", func(c *s3.Config) { c.Endpoint = "http://" }},
		{"EndpointQuery", func(c *s3.Config) { c.Endpoint = "http://h/?x=1" }},
		{"EndpointUser", func(c *s3.Config) { c.Endpoint = "http://u:p@h" }},
		{"EndpointPath", func(c *s3.Config) { c.Endpoint = "http://h/path" }},
		{"NoBucket", func(c *s3.Config) { c.Bucket = "" }},
		{"BucketUpper", func(c *s3.Config) { c.Bucket = "Media" }},
		{"BucketShort", func(c *s3.Config) { c.Bucket = "ab" }},
		{"BucketSlash", func(c *s3.Config) { c.Bucket = "a/b" }},
		{"PrefixDotDot", func(c *s3.Config) { c.Prefix = "../x" }},
		{"PrefixDotSegment", func(c *s3.Config) { c.Prefix = "a/.meta" }},
		{"PrefixDoubleSlash", func(c *s3.Config) { c.Prefix = "a//b" }},
		{"PublicURLRelative", func(c *s3.Config) { c.PublicURL = "/uploads" }},
		{"PublicURLFragment", func(c *s3.Config) { c.PublicURL = "https://cdn.example.com/#x" }},
		{"NoAccessKey", func(c *s3.Config) { c.AccessKey = "" }},
		{"NoSecretKey", func(c *s3.Config) { c.SecretKey = "" }},
		{"NegativeRetries", func(c *s3.Config) { c.MaxRetries = -1 }},
	} {
		t.Run("Err"+tc.name, func(t *testing.T) {
			cfg := good
			tc.edit(&cfg)
			if _, err := s3.New(cfg); err == nil {
				t.Errorf("New(%+v) = nil error", cfg)
			}
		})
	}
}

func TestStorage_URL(t *testing.T) {
	base := s3.Config{Endpoint: "http://127.0.0.1:7070", Bucket: "media", Prefix: "mysite", AccessKey: "a", SecretKey: "s"}
	for _, tc := range []struct {
		name            string
		edit            func(*s3.Config)
		wantURL, wantFK string
	}{
		{"Default", func(*s3.Config) {},
			"http://127.0.0.1:7070/media/mysite/2026/11/a%20b.jpg", "mysite/2026/11/a b.jpg"},
		{"PublicURL", func(c *s3.Config) { c.PublicURL = "https://cdn.example.com/m/" },
			"https://cdn.example.com/m/mysite/2026/11/a%20b.jpg", "mysite/2026/11/a b.jpg"},
		{"NestedPrefix", func(c *s3.Config) { c.Prefix = "sites/my site" },
			"http://127.0.0.1:7070/media/sites/my%20site/2026/11/a%20b.jpg", "sites/my site/2026/11/a b.jpg"},
		{"NoPrefix", func(c *s3.Config) { c.Prefix = "" },
			"http://127.0.0.1:7070/media/2026/11/a%20b.jpg", "2026/11/a b.jpg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base
			tc.edit(&cfg)
			s := mustNew(t, cfg)
			if got := s.URL("2026/11/a b.jpg"); got != tc.wantURL {
				t.Errorf("URL = %q, want %q", got, tc.wantURL)
			}
			if got := s.FullKey("2026/11/a b.jpg"); got != tc.wantFK {
				t.Errorf("FullKey = %q, want %q", got, tc.wantFK)
			}
		})
	}
}
