package content

import "testing"

// BenchmarkLeafBundlesNone is what leafBundles and declaredTypes add to
// every Assemble of a 10k site without a bundle.
func BenchmarkLeafBundlesNone(b *testing.B) {
	files := siteFiles(b, 10_000)
	b.ReportAllocs()
	for b.Loop() {
		out, _, _ := leafBundles(files, bundleRules{declared: declaredTypes(files)})
		if len(out) != len(files) {
			b.Fatal(len(out))
		}
	}
}
