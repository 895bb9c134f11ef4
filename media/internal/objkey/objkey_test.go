package objkey

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	good := []string{
		"a", "2026/11/photo.jpg", "2026/11/photo.jpg.webp", "a b/c d.png",
		"ünïcode/файл.jpg", "x/y/z/w.bin", "a..b/c", "a./b",
	}
	for _, k := range good {
		if err := Check(k); err != nil {
			t.Errorf("Check(%q) = %v, want nil", k, err)
		}
	}
	bad := []string{
		"", "/abs", "/", "a/", "a//b", ".", "..", "../x", "a/../b", "a/./b",
		"a/..", ".hidden", "a/.meta/x.yaml", "a\\b", "a\x00b", "a\nb",
		"a\x7fb", "a\u0085b", "\xff\xfe", strings.Repeat("a", 1000),
	}
	for _, k := range bad {
		if err := Check(k); !errors.Is(err, ErrInvalid) {
			t.Errorf("Check(%q) = %v, want ErrInvalid", k, err)
		}
	}
}
