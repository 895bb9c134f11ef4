package gitsource

import (
	"os"
	"testing"

	"github.com/folio-cms/folio/content"
)

func BenchmarkZZDecode(b *testing.B) {
	data, err := readCacheFile(os.Getenv("ZZ_CACHE"))
	if err != nil {
		b.Skip(err)
	}
	body := data[len(cacheMagic) : len(data)-4]
	for _, intern := range []bool{false, true} {
		name := "plain"
		if intern {
			name = "intern"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d := newCacheDecoder(body)
				if intern {
					d.in = newInterner()
				}
				d.Str()
				d.Str()
				n := 0
				for d.Err == nil && d.Byte1() == 1 {
					var k docKey
					copy(k.blob[:], d.Bytes(20))
					k.ext = d.key()
					d.doc(k.ext, func(off int) content.Markdown { return content.Markdown{} })
					n++
				}
			}
		})
	}
}
