package decap

import (
	"context"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine"
)

// dateKeys are the front matter keys of a publication date, as folio
// reads them (publishedAt, then Hugo's publishDate and date) and as
// Astro writes it (pubDate, which folio serves as data), lower case.
var dateKeys = []string{"publishedat", "publishdate", "date", "pubdate"}

// dateSample is how many documents of a collection tell its date key.
const dateSample = 32

// dateOnly is a date written without a time (2024-01-02), quoted or not.
var dateOnly = regexp.MustCompile(`^['"]?\d{4}-\d{2}-\d{2}['"]?$`)

// dateField is the date key a collection's documents use, as written
// ("date", "publishDate"), and whether they write dates without a time.
type dateField struct {
	Key      string
	DateOnly bool
}

// dateFields reads, for each type ("" for the pages), the date key its
// documents use: the most common of dateKeys in (up to dateSample of)
// its files, as written; none when they use none.
// The answer is kept for the snapshot's commit (config.yml is read at
// every editor load; a commit's files do not change).
func (s *Service) dateFields(ctx context.Context, snap *engine.Snapshot) map[string]dateField {
	s.dates.mu.Lock()
	defer s.dates.mu.Unlock()
	if s.dates.commit == snap.Commit && s.dates.v != nil {
		return s.dates.v
	}
	v, ok := s.readDateFields(ctx, snap)
	if ok {
		s.dates.commit, s.dates.v = snap.Commit, v
	}
	return v
}

// dateCache is dateFields' answer for one commit.
type dateCache struct {
	mu     sync.Mutex
	commit string
	v      map[string]dateField
}

func (s *Service) readDateFields(ctx context.Context, snap *engine.Snapshot) (map[string]dateField, bool) {
	out := map[string]dateField{}
	type doc struct{ path, blob string }
	groups := map[string][]doc{}
	for t, items := range snap.Site.Items {
		for _, it := range items {
			if len(groups[t]) < dateSample && it.Meta.Blob != "" {
				groups[t] = append(groups[t], doc{it.Meta.Path, it.Meta.Blob})
			}
		}
	}
	for _, p := range snap.Site.Pages {
		if len(groups[""]) < dateSample && p.Meta.Blob != "" {
			groups[""] = append(groups[""], doc{p.Meta.Path, p.Meta.Blob})
		}
	}
	// One read of every sampled file, the groups in one order.
	names := slices.Sorted(maps.Keys(groups))
	var ids []string
	for _, t := range names {
		for _, d := range groups[t] {
			ids = append(ids, d.blob)
		}
	}
	all, err := s.Repo.Blobs(ctx, ids)
	if err != nil || len(all) != len(ids) {
		return out, false
	}
	for _, t := range names {
		docs := groups[t]
		datas := all[:len(docs)]
		all = all[len(docs):]
		count := map[string]int{}
		dateOnlyN := map[string]int{}
		for i, d := range docs {
			parsed, err := content.Parse(d.path, datas[i])
			if err != nil {
				continue
			}
			lines := strings.Split(string(datas[i]), "\n")
			for k := range parsed.Fields() {
				lk := strings.ToLower(k)
				for _, want := range dateKeys {
					if lk != want {
						continue
					}
					count[k]++
					if l := parsed.KeyLines()[k]; l > 0 && l <= len(lines) {
						if _, v, ok := strings.Cut(lines[l-1], ":"); ok && dateOnly.MatchString(strings.TrimSpace(v)) {
							dateOnlyN[k]++
						}
					}
				}
			}
		}
		best := ""
		for k, n := range count {
			if best == "" || n > count[best] || n == count[best] && rank(k) < rank(best) {
				best = k
			}
		}
		if best != "" {
			out[t] = dateField{Key: best, DateOnly: dateOnlyN[best] == count[best]}
		}
	}
	return out, true
}

// rank is a date key's precedence (folio's: publishedAt first).
func rank(k string) int {
	for i, d := range dateKeys {
		if strings.EqualFold(k, d) {
			return i
		}
	}
	return len(dateKeys)
}
