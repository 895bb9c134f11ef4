package media

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// fastSidecars are the fixtures of testdata/sidecars that the fast reader
// must decode itself (the shapes encodeSidecar, cmd/folio-gen and
// yaml.Marshal write); every other fixture goes to yaml.v3.
var fastSidecars = map[string]bool{
	"encoded.yaml": true, "folio-gen.yaml": true, "indent4.yaml": true, "unicode.yaml": true,
}

// The two decoders agree on every fixture: what the fast reader decodes,
// yaml.v3 decodes to the same item; what it leaves, yaml.v3 decodes as
// before (unmarshalSidecar gives its item or its error).
func TestSidecarDecoders_Fixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "sidecars", "*.yaml"))
	if err != nil || len(files) < 10 {
		t.Fatalf("fixtures: %v, %v", files, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		var fast Item
		ok := parseSidecarFast(data, &fast)
		if ok != fastSidecars[name] {
			t.Errorf("%s: fast reader took it: %v, want %v", name, ok, fastSidecars[name])
		}
		checkDecodersAgree(t, name, data)
	}
}

// checkDecodersAgree fails when the fast reader accepts data and yaml.v3
// refuses it or decodes another item, or when unmarshalSidecar differs
// from yaml.v3.
func checkDecodersAgree(t *testing.T, name string, data []byte) (fast bool) {
	t.Helper()
	var want Item
	werr := yaml.Unmarshal(data, &want)
	var got Item
	if parseSidecarFast(data, &got) {
		if werr != nil {
			t.Fatalf("%s: the fast reader took what yaml.v3 refuses (%v):\n%s", name, werr, data)
		}
		if d := itemDiff(got, want); d != "" {
			t.Fatalf("%s: the decoders differ: %s\n%s", name, d, data)
		}
		fast = true
	}
	var via Item
	err := unmarshalSidecar(data, &via)
	if (err == nil) != (werr == nil) {
		t.Fatalf("%s: unmarshalSidecar error %v, yaml.v3's %v", name, err, werr)
	}
	if err == nil {
		if d := itemDiff(via, want); d != "" {
			t.Fatalf("%s: unmarshalSidecar differs from yaml.v3: %s\n%s", name, d, data)
		}
	}
	return fast
}

// itemDiff names the first field where a and b differ ("" for none);
// times are equal when they are the same instant in the same zone.
func itemDiff(a, b Item) string {
	if !a.CreatedAt.Equal(b.CreatedAt) || a.CreatedAt.Location().String() != b.CreatedAt.Location().String() {
		return "createdAt " + a.CreatedAt.String() + " / " + b.CreatedAt.String()
	}
	_, ao := a.CreatedAt.Zone()
	_, bo := b.CreatedAt.Zone()
	if ao != bo {
		return "createdAt's offset"
	}
	a.CreatedAt, b.CreatedAt = time.Time{}, time.Time{}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := range va.NumField() {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			return va.Type().Field(i).Name
		}
	}
	return ""
}

// Items with awkward text (what yaml.v3 quotes, resolves, or would read
// as structure), written by encodeSidecar: the decoders agree on each,
// and the fast reader takes most.
func TestSidecarDecoders_Encoded(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	fast, n := 0, 3000
	for range n {
		it := randomItem(r)
		data, err := encodeSidecar(&it)
		if err != nil {
			t.Fatal(err)
		}
		if checkDecodersAgree(t, "encoded item", data) {
			fast++
		}
	}
	// Items whose texts are all plain or simply quoted (about one in
	// ten here, most in a real library) are the fast reader's; the rest
	// (escapes, lines) go to yaml.v3.
	if fast < n/20 {
		t.Errorf("the fast reader took %d of %d encoded items", fast, n)
	}
	t.Logf("the fast reader took %d of %d encoded items", fast, n)
}

// sidecarWords are pieces of text that yaml.v3 treats specially, or that
// a reader of YAML could get wrong.
var sidecarWords = []string{
	"", " ", "a", "cat", "yes", "no", "on", "true", "False", "null", "Null", "~", "-", "- x", "-1", "0", "010",
	"0x1F", "1_000", "1e3", ".5", ".inf", ".NaN", "12.50", "2026-11-03", "2026-11-03T04:05:06Z", "a: b", "a:b",
	"a #b", "a#b", "#x", "'", "''", "\"", "x'y", `x"y`, `\`, "\\n", "\n", "a\nb", "\t", "\r", "\x01", "\u0085",
	"\u2028", "\ufeff", "é", "山", "✓", "?", "? x", ":", "::", "[a]", "{a: b}", "&a", "*a", "!t", "!!str", "|", ">",
	"%", "@", "`", "<<", "=", "...", "---", "/", "/a/b", "a,b", "trailing ", " leading", "a  b", "a: ", "#",
}

// plainWords make the texts of most items: what sidecars mostly hold.
var plainWords = []string{"A", "photo", "of", "the", "lake", "at", "dawn,", "2026", "café", "trail-map.svg", "/", "#1", "(b/w)", "it's", "山"}

func randomText(r *rand.Rand) string {
	var b strings.Builder
	if r.IntN(3) > 0 {
		for i := range 1 + r.IntN(5) {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(plainWords[r.IntN(len(plainWords))])
		}
		return b.String()
	}
	for range r.IntN(4) {
		b.WriteString(sidecarWords[r.IntN(len(sidecarWords))])
	}
	return b.String()
}

func randomItem(r *rand.Rand) Item {
	it := Item{
		ID: randomText(r), Filename: randomText(r), MimeType: randomText(r),
		Size: r.Int64N(1 << 40), Width: r.IntN(10000), Height: r.IntN(10000), Version: r.IntN(100),
		Alt: randomText(r), Title: randomText(r), Description: randomText(r), Folder: randomText(r),
		FocalX: float64(r.IntN(101)), FocalY: r.Float64() * 100,
		CreatedAt:   time.Unix(r.Int64N(4e9), r.Int64N(1e9)).In([]*time.Location{time.UTC, time.FixedZone("", -5*3600), time.FixedZone("", 5*3600+1800)}[r.IntN(3)]),
		Key:         randomText(r),
		Placeholder: randomText(r), DominantColor: randomText(r),
	}
	if r.IntN(2) == 0 {
		it.Size = -it.Size
	}
	for range r.IntN(3) {
		it.Sizes = append(it.Sizes, Size{Width: r.IntN(2000), Height: r.IntN(2000), Key: randomText(r)})
	}
	for _, m := range []*map[string]string{&it.AltByLocale, &it.TitleByLocale, &it.DescriptionByLocale} {
		for range r.IntN(3) {
			if *m == nil {
				*m = map[string]string{}
			}
			(*m)[randomText(r)] = randomText(r)
		}
	}
	return it
}

// FuzzSidecarDecoders: whatever the fast reader accepts, yaml.v3 decodes
// to the same item, and unmarshalSidecar is yaml.v3 for everything else.
func FuzzSidecarDecoders(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "sidecars", "*.yaml"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		it := randomItem(r)
		data, err := encodeSidecar(&it)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecodersAgree(t, "fuzz input", data)
	})
}
