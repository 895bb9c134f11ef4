package server_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/engine/write"
	"github.com/folio-cms/folio/server"
	"go.yaml.in/yaml/v3"
)

// TestNoLostUpdate (issue 29): writers on two boxes edit overlapping and
// disjoint fields of two documents at random, through the write API (with
// If-Match or without) and Decap (simple mode and the editorial
// workflow), on every kind of branch: the published branch (served), the
// draft branch (served), an entry's cms/ branch and another branch
// --write-branches allows (neither served). Each writer reads first, then
// writes unique values. At the end, on each branch:
//   - every acknowledged value is in the remote's history of the file;
//   - every change of a field in that history, from X to a writer's
//     value, was made by a writer that had read X (Decap, If-Match), or,
//     for a write API write without If-Match (made against what its box
//     served when it arrived), X was written by a write sent before it:
//     no write took the place of a value it could not have known.
func TestNoLostUpdate(t *testing.T) {
	t.Parallel()
	docs := []string{"d0", "d1"}
	fields := []string{"a", "b", "c"}
	site := map[string]string{"folio.yaml": "types:\n  posts: {}\n"}
	for _, d := range docs {
		site["content/posts/"+d+".md"] = "---\ntitle: " + strings.ToUpper(d) + "\na: init\nb: init\nc: init\n---\nBody.\n"
	}
	repo := newRepo(t, site)
	branches := []string{"main", "draft", "cms/posts/d0", "team/x"}
	for _, b := range branches[1:] {
		git(t, repo.bare, "branch", b, "main")
	}
	boxes := make([]*testServer, 2)
	for i := range boxes {
		boxes[i] = startWriterCfg(t, "file://"+repo.bare, func(e *engine.Config, w *write.Config) {
			e.DraftBranch = "draft"
			w.WriteBranches = []string{"main", "cms/*", "team/*"}
		})
	}
	keys := make([]string, 2)
	for i, b := range boxes {
		keys[i] = b.key(t, "ed", server.ScopeContentRead, server.ScopeContentPreview, server.ScopeContentDraft, server.ScopeContentWrite)
	}

	type op struct {
		id            int
		branch, doc   string
		set           []string          // the fields it sets, to its token
		seen          map[string]string // the fields as it read them
		strict        bool              // it wrote only over what it read (Decap, If-Match)
		sent, acked   time.Time
		status        int
		route, answer string
	}
	var mu sync.Mutex
	var ops []*op
	line := func(f string) *regexp.Regexp { return regexp.MustCompile(`(?m)^` + f + `: .*$`) }
	frontMatter := func(raw string) map[string]string {
		out := map[string]string{}
		parts := strings.SplitN(raw, "---\n", 3)
		if len(parts) < 3 {
			return out
		}
		var m map[string]any
		if yaml.Unmarshal([]byte(parts[1]), &m) != nil {
			return out
		}
		for _, f := range fields {
			out[f] = fmt.Sprint(m[f])
		}
		return out
	}

	run := func(o *op, box int, rng *rand.Rand) {
		ts, key := boxes[box], keys[box]
		p := "content/posts/" + o.doc + ".md"
		token := fmt.Sprintf("w%d", o.id)
		decapBranch := o.branch == "main" || o.branch == "draft" || o.branch == "cms/posts/d0"
		if decapBranch && rng.IntN(2) == 0 {
			// Decap: open the entry, change the fields in its raw, save
			// with the base the editor page sends.
			o.route, o.strict = "decap", true
			var raw, base string
			workflow := o.branch == "cms/posts/d0"
			rb := o.branch
			if workflow {
				rb = "main"
				r := rpc(t, ts.URL, key, "unpublishedEntryDataFile", map[string]any{"branch": "main", "collection": "posts", "slug": o.doc, "path": p})
				var v struct{ Data, ID string }
				if r.Status != 200 || json.Unmarshal(r.Body, &v) != nil {
					o.status = -1
					return
				}
				raw, base = v.Data, v.ID
			} else {
				r := rpc(t, ts.URL, key, "getEntry", map[string]any{"branch": rb, "path": p})
				var e openedEntry
				if r.Status != 200 || json.Unmarshal(r.Body, &e) != nil || e.Data == nil {
					o.status = -1
					return
				}
				raw, base = *e.Data, *e.File.ID
			}
			o.seen = frontMatter(raw)
			for _, f := range o.set {
				raw = line(f).ReplaceAllString(raw, f+": "+token)
			}
			o.sent = time.Now()
			r := persist(t, ts.URL, key, rb, p, raw, &base, workflow)
			o.acked, o.status, o.answer = time.Now(), r.Status, string(r.Body)
			return
		}
		o.route = "api"
		g := get(t, ts.URL+"/api/v1/content/posts/"+o.doc+"?ref="+o.branch, key)
		if g.Status != 200 {
			o.status = -1
			return
		}
		var doc struct{ Data map[string]any }
		if json.Unmarshal(g.Body, &doc) != nil {
			o.status = -1
			return
		}
		o.seen = map[string]string{}
		for _, f := range fields {
			o.seen[f] = fmt.Sprint(doc.Data[f])
		}
		set := map[string]string{}
		for _, f := range o.set {
			set[f] = token
		}
		body, _ := json.Marshal(map[string]any{"data": set})
		var hdr []string
		if rng.IntN(2) == 0 {
			o.strict, o.route = true, "api+If-Match"
			hdr = []string{"If-Match", g.Header.Get("ETag")}
		}
		o.sent = time.Now()
		r := wr(t, "PATCH", ts.URL+"/api/v1/content/posts/"+o.doc+"?branch="+o.branch, key, string(body), hdr...)
		o.acked, o.status, o.answer = time.Now(), r.Status, string(r.Body)
	}

	const workers, each = 6, 6
	var wg sync.WaitGroup
	for wk := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(wk), 29))
			for range each {
				mu.Lock()
				o := &op{id: len(ops)}
				ops = append(ops, o)
				mu.Unlock()
				o.branch = branches[rng.IntN(len(branches))]
				o.doc = docs[rng.IntN(len(docs))]
				if o.branch == "cms/posts/d0" {
					o.doc = "d0"
				}
				for _, f := range fields {
					if rng.IntN(2) == 0 {
						o.set = append(o.set, f)
					}
				}
				if len(o.set) == 0 {
					o.set = []string{fields[rng.IntN(len(fields))]}
				}
				run(o, rng.IntN(2), rng)
			}
		}()
	}
	wg.Wait()

	byToken := map[string]*op{}
	acked := 0
	for _, o := range ops {
		switch o.status {
		case 200:
			acked++
			byToken[fmt.Sprintf("w%d", o.id)] = o
		case 409, 412, -1:
		default:
			t.Fatalf("op %d (%s on %s): %d %s", o.id, o.route, o.branch, o.status, o.answer)
		}
	}
	if acked < len(ops)/4 {
		t.Fatalf("only %d of %d writes acknowledged", acked, len(ops))
	}
	t.Logf("%d of %d writes acknowledged", acked, len(ops))
	for _, br := range branches {
		for _, d := range docs {
			p := "content/posts/" + d + ".md"
			commits := strings.Fields(git(t, repo.bare, "log", "--reverse", "--first-parent", "--format=%H", br, "--", p))
			ever := map[string]bool{} // field=value ever on the branch
			prev := map[string]string{"a": "init", "b": "init", "c": "init"}
			for _, c := range commits {
				cur := frontMatter(git(t, repo.bare, "show", c+":"+p) + "\n")
				for _, f := range fields {
					ever[f+"="+cur[f]] = true
					if cur[f] == prev[f] {
						continue
					}
					w := byToken[cur[f]]
					if w == nil {
						t.Fatalf("%s %s: %s became %q, which no acknowledged write set", br, p, f, cur[f])
					}
					if w.seen[f] == prev[f] {
						continue
					}
					if from := byToken[prev[f]]; !w.strict && (prev[f] == "init" || from != nil && from.sent.Before(w.sent)) {
						continue
					}
					t.Fatalf("%s %s: op %d (%s) set %s over %q, which it had not read (it read %q)", br, p, w.id, w.route, f, prev[f], w.seen[f])
				}
				prev = cur
			}
			for _, o := range byToken {
				if o.branch != br || o.doc != d {
					continue
				}
				for _, f := range o.set {
					if !ever[f+"=w"+fmt.Sprint(o.id)] {
						t.Fatalf("%s %s: op %d (%s) was acknowledged, its %s is nowhere in the history", br, p, o.id, o.route, f)
					}
				}
			}
		}
	}
}
