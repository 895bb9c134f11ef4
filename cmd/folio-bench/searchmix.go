package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode"
)

// The media search keeps the answers of its searches until the library
// changes, so a load that repeats a few searches measures map lookups.
// The uncached figures send searches that are all distinct: the words of
// the library itself (read from a sample of its items), their prefixes
// (as typed), and pairs of them, each once per cycle of more than
// twice the result cache (1024 searches), so that none is answered from
// it.

// uncachedSearchN is how many distinct searches a cycle holds; wrk's two
// threads start half a cycle apart.
const uncachedSearchN = 8192

// mediaVocabulary returns the words (3 letters or more) of the filenames
// and alt texts of a sample of the library: 16 pages of 100 items spread
// over it.
func mediaVocabulary(client *http.Client, base, key string) ([]string, error) {
	type page struct {
		Data []struct {
			Filename string `json:"filename"`
			Alt      string `json:"alt"`
		} `json:"data"`
		Total int `json:"total"`
	}
	get := func(offset int) (page, error) {
		var p page
		req, _ := http.NewRequest("GET", fmt.Sprintf("%s/api/v1/media?limit=100&offset=%d", base, offset), nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := client.Do(req)
		if err != nil {
			return p, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return p, fmt.Errorf("GET /api/v1/media: %s", resp.Status)
		}
		return p, json.NewDecoder(resp.Body).Decode(&p)
	}
	first, err := get(0)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i := range 16 {
		p := first
		if i > 0 {
			if p, err = get(i * first.Total / 16); err != nil {
				return nil, err
			}
		}
		for _, it := range p.Data {
			for _, w := range strings.FieldsFunc(strings.ToLower(it.Filename+" "+it.Alt), func(r rune) bool { return !unicode.IsLetter(r) }) {
				if len(w) >= 3 {
					seen[w] = true
				}
			}
		}
	}
	words := make([]string, 0, len(seen))
	for w := range seen {
		words = append(words, w)
	}
	slices.Sort(words)
	if len(words) < 20 {
		return nil, fmt.Errorf("the library's sample has only %d distinct words", len(words))
	}
	return words, nil
}

// searchMix is n distinct searches of words in a fixed shuffled order:
// every word, every prefix of 3 letters or more of the longer ones, and
// pairs of words to make up n; it reports how many of each.
func searchMix(words []string, n int) (qs []string, note string) {
	seen := map[string]bool{}
	var one, two []string
	for _, w := range words {
		if !seen[w] {
			seen[w] = true
			one = append(one, w)
		}
	}
	nw := len(one)
	for _, w := range words {
		for l := 3; l < len(w); l++ {
			if p := w[:l]; !seen[p] {
				seen[p] = true
				one = append(one, p)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 1))
	for len(one)+len(two) < n && len(two) < len(words)*len(words)/2 {
		q := words[r.IntN(len(words))] + " " + words[r.IntN(len(words))]
		if !seen[q] {
			seen[q] = true
			two = append(two, q)
		}
	}
	qs = append(one, two...)
	r.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	qs = qs[:min(n, len(qs))]
	return qs, fmt.Sprintf("%d distinct searches: %d words of the library, %d prefixes of them, %d pairs", len(qs), nw, len(one)-nw, len(two))
}

// searchURLs makes the URLs of GET /api/v1/media?search= for qs.
func searchURLs(base string, qs []string) []string {
	urls := make([]string, len(qs))
	for i, q := range qs {
		urls[i] = base + "/api/v1/media?search=" + url.QueryEscape(q)
	}
	return urls
}
