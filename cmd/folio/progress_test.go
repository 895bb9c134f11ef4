package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProgress(t *testing.T) {
	t.Parallel()
	t.Run("FileIsNoTerminal", func(t *testing.T) {
		name := filepath.Join(t.TempDir(), "out")
		f, err := os.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var errw bytes.Buffer
		p := newProgress(f, &errw, "import", 2, 10)
		if p.bar != nil {
			t.Fatal("a bar on a file")
		}
		p.item("a\tb\tc", 5)
		p.fail("x.jpg", errors.New("broken"), 10)
		p.finish()
		if got, _ := os.ReadFile(name); string(got) != "a\tb\tc\n" {
			t.Errorf("stdout %q", got)
		}
		if errw.String() != "x.jpg: broken\n" {
			t.Errorf("stderr %q", errw.String())
		}
	})

	t.Run("Bar", func(t *testing.T) {
		var out, errw bytes.Buffer
		p := newProgress(&out, &errw, "import", 2, 2000)
		p.startBar(&out, 2000)
		io.Copy(io.Discard, p.reader(strings.NewReader(strings.Repeat("x", 1000))))
		p.item("never printed", 1000)
		p.fail("x.jpg", errors.New("broken"), 2000)
		p.finish()
		s := out.String()
		if strings.Contains(s, "never printed") || !strings.Contains(s, "import 2/2 files") || !strings.Contains(s, "100%") || !strings.Contains(s, "2.0 kB") {
			t.Errorf("bar output %q", s)
		}
		if errw.String() != "x.jpg: broken\n" {
			t.Errorf("stderr %q", errw.String())
		}
	})
}
