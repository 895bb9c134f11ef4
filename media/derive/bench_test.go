package derive

import (
	"bytes"
	"context"
	"fmt"
	"image/jpeg"
	"syscall"
	"testing"
	"time"

	"github.com/disintegration/imaging"

	"github.com/folio-cms/folio/media/probe"
)

// photo12MP is a 4000×3000 JPEG of gradients and noise, the size of a
// phone photo.
func photo12MP(b *testing.B) []byte {
	b.Helper()
	return encode(b, probe.JPEG, gradient(4000, 3000, 12))
}

// cpuTime is the user+system CPU time of the process so far. The machine
// is shared, so wall time per op is noisy; CPU per op is the steadier
// figure to compare strategies by.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkImages12MP is the whole job for a phone photo: decode, four
// derivatives, placeholder and dominant color.
func BenchmarkImages12MP(b *testing.B) {
	data := photo12MP(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime(b)
	defer reportCPU(b, start)
	for b.Loop() {
		if _, err := Images(context.Background(), bytes.NewReader(data), probe.JPEG, widths, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode12MP is the floor: the JPEG decode alone, by Go's
// image/jpeg, and by this build's decoder (libjpeg-turbo with -tags
// libjpeg) at full size and shrunk on load by 1/2.
func BenchmarkDecode12MP(b *testing.B) {
	data := photo12MP(b)
	b.Run("image-jpeg", func(b *testing.B) {
		b.ReportAllocs()
		start := cpuTime(b)
		defer reportCPU(b, start)
		for b.Loop() {
			if _, err := jpeg.Decode(bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, denom := range []int{1, 2} {
		b.Run(fmt.Sprintf("build-1of%d", denom), func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime(b)
			defer reportCPU(b, start)
			for b.Loop() {
				if _, err := decodeChecked(context.Background(), bytes.NewReader(data), probe.JPEG, Limits{}.withDefaults(),
					func(int, int, int) int { return denom }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPipelines compares the resize strategies on the decoded photo
// (decode excluded), to justify defaultPipeline.
func BenchmarkPipelines(b *testing.B) {
	m, err := jpeg.Decode(bytes.NewReader(photo12MP(b)))
	if err != nil {
		b.Fatal(err)
	}
	src := decoded{img: m, W: m.Bounds().Dx(), H: m.Bounds().Dy(), orientation: 1}
	for _, tc := range []struct {
		name string
		p    pipeline
	}{
		{"lanczos-from-source", pipeline{first: imaging.Lanczos, next: imaging.Lanczos}},
		{"catmullrom-from-source", pipeline{first: imaging.CatmullRom, next: imaging.CatmullRom}},
		{"lanczos-progressive", pipeline{first: imaging.Lanczos, next: imaging.Lanczos, progressive: true}},
		{"catmullrom-progressive", pipeline{first: imaging.CatmullRom, next: imaging.CatmullRom, progressive: true}},
		{"linear-progressive", pipeline{first: imaging.Linear, next: imaging.Linear, progressive: true}},
		{"shrink-catmullrom-progressive", pipeline{first: imaging.CatmullRom, next: imaging.CatmullRom, progressive: true, prescale: true}},
		{"shrink-linear-progressive", pipeline{first: imaging.Linear, next: imaging.Linear, progressive: true, prescale: true}},
		{"shrink-lanczos-progressive", pipeline{first: imaging.Lanczos, next: imaging.Lanczos, progressive: true, prescale: true}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime(b)
			defer reportCPU(b, start)
			for b.Loop() {
				if _, err := render(context.Background(), src, widths, tc.p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVariant is a 1200×675 cover crop of a 12 MP JPEG, the whole
// job (decode, crop, shrink, resample, WebP), by resampling filter.
func BenchmarkVariant(b *testing.B) {
	src := photo12MP(b)
	spec := Spec{W: 1200, H: 675, Fit: "cover", Format: FormatWebP, Quality: 80}
	for _, f := range []struct {
		name string
		f    imaging.ResampleFilter
	}{{"Linear", imaging.Linear}, {"CatmullRom", imaging.CatmullRom}, {"Lanczos", imaging.Lanczos}} {
		b.Run(f.name, func(b *testing.B) {
			m, err := decodeChecked(context.Background(), bytes.NewReader(src), probe.JPEG, Limits{}.withDefaults(), func(w, h, o int) int {
				return variantDenom(spec, w, h, o, 50, 50)
			})
			if err != nil {
				b.Fatal(err)
			}
			start := cpuTime(b)
			for b.Loop() {
				renderVariant(m, spec, 50, 50, f.f)
			}
			reportCPU(b, start)
		})
	}
	b.Run("Whole", func(b *testing.B) {
		start := cpuTime(b)
		for b.Loop() {
			if _, err := Variant(context.Background(), bytes.NewReader(src), probe.JPEG, spec, 50, 50, Limits{}); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, start)
	})
}
