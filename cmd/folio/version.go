package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/folio-cms/folio/media/derive"
)

// version and commit are set at build time:
// go build -ldflags "-X main.version=v0.1.0 -X main.commit=<sha>" (make build
// and make dist do). Without them the commit comes from the VCS stamp the Go
// toolchain records, when it recorded one.
var (
	version = "dev"
	commit  = ""
)

// printVersion writes what the binary is: its version, the commit it was
// built from, the Go toolchain and platform, the build tags (which decide
// the JPEG decoder and whether AVIF variants exist) and whether cgo was on.
func printVersion(w io.Writer) {
	tags, cgo, rev := buildSettings()
	if commit != "" {
		rev = commit
	}
	if rev == "" {
		rev = "unknown"
	}
	if tags == "" {
		tags = "none"
	}
	avif := "off (built without libavif)"
	if derive.AVIF {
		avif = "libavif"
	}
	fmt.Fprintf(w, "folio %s\n", version)
	fmt.Fprintf(w, "commit:        %s\n", rev)
	fmt.Fprintf(w, "go:            %s %s/%s, cgo %s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, cgo)
	fmt.Fprintf(w, "build tags:    %s\n", tags)
	fmt.Fprintf(w, "JPEG decoder:  %s\n", derive.JPEGDecoder)
	fmt.Fprintf(w, "AVIF variants: %s\n", avif)
}

// buildSettings reads the build tags, CGO_ENABLED and the VCS revision
// (with "-dirty" when the tree was modified) that the Go toolchain stamps
// into every binary it builds.
func buildSettings() (tags, cgo, rev string) {
	cgo = "unknown"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", cgo, ""
	}
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "-tags":
			tags = s.Value
		case "CGO_ENABLED":
			cgo = map[string]string{"1": "on", "0": "off"}[s.Value]
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return tags, cgo, rev
}
