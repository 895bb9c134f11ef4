package server_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/folio-cms/folio/server"
)

// openedEntry is getEntry's answer: the raw file and its id.
type openedEntry struct {
	Data *string `json:"data"`
	File struct {
		Path string  `json:"path"`
		ID   *string `json:"id"`
	} `json:"file"`
}

func getEntry(t *testing.T, base, key, branch, p string) openedEntry {
	t.Helper()
	r := rpc(t, base, key, "getEntry", map[string]any{"branch": branch, "path": p})
	wantOK(t, r)
	var e openedEntry
	if err := json.Unmarshal(r.Body, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// persist saves one data file as Decap does, with base (nil: none given,
// as Decap's own protocol sends).
func persist(t *testing.T, base, key, branch, p, raw string, fileBase *string, workflow bool) response {
	t.Helper()
	f := map[string]any{"slug": strings.TrimSuffix(p[strings.LastIndexByte(p, '/')+1:], ".md"), "path": p, "raw": raw}
	if fileBase != nil {
		f["base"] = *fileBase
	}
	return rpc(t, base, key, "persistEntry", map[string]any{"branch": branch, "dataFiles": []any{f}, "assets": []any{},
		"options": map[string]any{"collectionName": "posts", "commitMessage": "Update " + p, "useWorkflow": workflow, "status": "draft"}})
}

// TestDecapTwoEditorsOneEntry is issue 29's first lost update: two
// editors open one post; the first saves one field, the second another,
// each from the file as they opened it. The second save is merged with
// the first (both fields are in the file), a save changing a field the
// other changed too is refused (409) and a save that says nothing of what
// it was made from is refused (412): never written over the first.
func TestDecapTwoEditorsOneEntry(t *testing.T) {
	t.Parallel()
	for _, workflow := range []bool{false, true} {
		name := "simple"
		if workflow {
			name = "workflow"
		}
		t.Run(name, func(t *testing.T) {
			repo, w, _ := decapBoxes(t)
			key := w.key(t, "ann", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
			const p = "content/posts/hello.md"
			branch := "main"
			e := getEntry(t, w.URL, key, "main", p)
			if e.Data == nil || e.File.ID == nil {
				t.Fatalf("getEntry: %+v", e)
			}
			raw, id := *e.Data, *e.File.ID
			first := strings.Replace(raw, "title: Hello\n", "title: Hello\nrating: 4\n", 1)
			second := strings.Replace(raw, "title: Hello\n", "title: Hello\ntags: [news]\n", 1)
			third := strings.Replace(raw, "title: Hello\n", "title: Hello\nrating: 2\n", 1)
			stored := func() string {
				ref := "main"
				if workflow {
					ref = "cms/posts/hello"
				}
				return git(t, repo.bare, "show", ref+":"+p)
			}
			r := persist(t, w.URL, key, branch, p, first, &id, workflow)
			wantOK(t, r)
			r = persist(t, w.URL, key, branch, p, second, &id, workflow)
			wantOK(t, r)
			if got := stored(); !strings.Contains(got, "rating: 4") || !strings.Contains(got, "news") || !strings.Contains(got, "Hello, world.") {
				t.Fatalf("the second save reverted the first:\n%s", got)
			}
			before := stored()
			wantError(t, persist(t, w.URL, key, branch, p, third, &id, workflow), 409, "CONFLICT")
			wantError(t, persist(t, w.URL, key, branch, p, third, nil, workflow), 412, "PRECONDITION_FAILED")
			if got := stored(); got != before {
				t.Fatalf("a refused save changed the file:\n%s", got)
			}
			// The base a save answers is what the editor's form holds:
			// the next save from it changes only what it changes.
			var ans struct{ Files []struct{ Path, Base string } }
			if err := json.Unmarshal(r.Body, &ans); err != nil || len(ans.Files) != 1 || ans.Files[0].Path != p {
				t.Fatalf("persistEntry answer: %s", r.Body)
			}
			again := strings.Replace(second, "Hello, world.", "Hello again.", 1)
			wantOK(t, persist(t, w.URL, key, branch, p, again, &ans.Files[0].Base, workflow))
			if got := stored(); !strings.Contains(got, "rating: 4") || !strings.Contains(got, "news") || !strings.Contains(got, "Hello again.") {
				t.Fatalf("the next save from the answered base:\n%s", got)
			}
		})
	}
}

// rpcOpened is persistEntry as folio's editor page sends it: each data
// file that names no base gets the id of the version the editor opened,
// read just before (unpublishedEntryDataFile for an entry under the
// workflow that has its branch, else getEntry), as the page remembers it.
func rpcOpened(t testing.TB, base, key string, params map[string]any, header ...string) response {
	t.Helper()
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	branch, _ := p["branch"].(string)
	opts, _ := p["options"].(map[string]any)
	files, _ := p["dataFiles"].([]any)
	for _, f := range files {
		df, _ := f.(map[string]any)
		path, _ := df["path"].(string)
		if _, given := df["base"]; given || path == "" {
			continue
		}
		if opts["useWorkflow"] == true {
			r := rpc(t, base, key, "unpublishedEntryDataFile", map[string]any{"branch": branch, "collection": opts["collectionName"], "slug": df["slug"], "path": path})
			var v struct{ ID string }
			if r.Status == 200 && json.Unmarshal(r.Body, &v) == nil && v.ID != "" {
				df["base"] = v.ID
				continue
			}
		}
		r := rpc(t, base, key, "getEntry", map[string]any{"branch": branch, "path": path})
		var e openedEntry
		if r.Status != 200 || json.Unmarshal(r.Body, &e) != nil {
			continue
		}
		if e.File.ID != nil {
			df["base"] = *e.File.ID
		} else {
			df["base"] = ""
		}
	}
	return rpc(t, base, key, "persistEntry", p, header...)
}

// TestDecapWorkflowConcurrentSaves: concurrent editorial-workflow saves
// of one entry, each from the version the editors opened and each
// changing the body: one is taken, the others refused (409), whether
// the entry's branch is new or exists.
func TestDecapWorkflowConcurrentSaves(t *testing.T) {
	t.Parallel()
	repo, w, _ := decapBoxes(t)
	key := w.key(t, "ann", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	const p, n = "content/posts/hello.md", 10
	for _, round := range []string{"new branch", "existing branch"} {
		opened := rpcOpenedBase(t, w.URL, key, p)
		var wg sync.WaitGroup
		res := make([]response, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[i] = persist(t, w.URL, key, "main", p, fmt.Sprintf("---\ntitle: Hello\n---\nWords %s %d.\n", round, i), &opened, true)
			}()
		}
		wg.Wait()
		won := -1
		for i, r := range res {
			switch r.Status {
			case 200:
				if won >= 0 {
					t.Fatalf("%s: saves %d and %d, made from one version, were both taken", round, won, i)
				}
				won = i
			case 409:
			default:
				t.Fatalf("%s: save %d: %d %s", round, i, r.Status, r.Body)
			}
		}
		if got := git(t, repo.bare, "show", "cms/posts/hello:"+p); won < 0 || !strings.Contains(got, fmt.Sprintf("Words %s %d.", round, won)) {
			t.Fatalf("%s: the taken save %d is not on the branch:\n%s", round, won, got)
		}
	}
}

// rpcOpenedBase is the base folio's editor page sends for p when the
// editor opens it now (see rpcOpened).
func rpcOpenedBase(t *testing.T, base, key, p string) string {
	t.Helper()
	r := rpc(t, base, key, "unpublishedEntryDataFile", map[string]any{"branch": "main", "collection": "posts", "slug": strings.TrimSuffix(p[strings.LastIndexByte(p, '/')+1:], ".md"), "path": p})
	var v struct{ ID string }
	if r.Status == 200 && json.Unmarshal(r.Body, &v) == nil && v.ID != "" {
		return v.ID
	}
	return *getEntry(t, base, key, "main", p).File.ID
}

// TestDecapCatchUpFailureLogged: after a refused save the box fetches so
// that the editor's next try starts from the new state; a fetch that
// fails is said in the log (issue 29, item 4), not dropped.
func TestDecapCatchUpFailureLogged(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	repo := newRepo(t, decapSite)
	w := startDecapWriter(t, "file://"+repo.bare, withLocalMedia(t, t.TempDir()), withLog(&logs))
	key := w.key(t, "ann", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	const p = "content/posts/hello.md"
	e := getEntry(t, w.URL, key, "main", p)
	wantOK(t, persist(t, w.URL, key, "main", p, "---\ntitle: Hello\n---\nOne.\n", e.File.ID, false))
	// The remote goes away; a save from the old version is refused and
	// the fetch after it fails.
	if err := os.Rename(repo.bare, repo.bare+".gone"); err != nil {
		t.Fatal(err)
	}
	wantError(t, persist(t, w.URL, key, "main", p, "---\ntitle: Hello\n---\nTwo.\n", e.File.ID, false), 409, "CONFLICT")
	if !strings.Contains(logs.String(), "catching up with the remote") {
		t.Fatalf("the failed fetch is not in the log:\n%s", logs.String())
	}
}

// TestDecapDeleteOpenedVersion: deleting an entry from the version the
// editor opened (the base folio's editor page sends) is refused (412)
// once someone changed it since, and the file stays; from the current
// version it is deleted.
func TestDecapDeleteOpenedVersion(t *testing.T) {
	t.Parallel()
	repo, w, _ := decapBoxes(t)
	key := w.key(t, "ann", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	const p = "content/posts/hello.md"
	old := getEntry(t, w.URL, key, "main", p)
	wantOK(t, persist(t, w.URL, key, "main", p, "---\ntitle: Hello\n---\nChanged meanwhile.\n", old.File.ID, false))
	del := func(id string) response {
		return rpc(t, w.URL, key, "deleteFiles", map[string]any{"branch": "main", "paths": []string{p}, "bases": map[string]string{p: id},
			"options": map[string]any{"commitMessage": "Delete hello"}})
	}
	wantError(t, del(*old.File.ID), 412, "PRECONDITION_FAILED")
	if !strings.Contains(git(t, repo.bare, "show", "main:"+p), "Changed meanwhile.") {
		t.Fatal("the changed entry was deleted")
	}
	wantOK(t, del(*getEntry(t, w.URL, key, "main", p).File.ID))
	if _, err := gitOut(repo.bare, "show", "main:"+p); err == nil {
		t.Fatal("not deleted")
	}
}

// TestDecapNewEntryOverDeleted: a new entry at the path of one deleted
// before is written (options.newEntry: no file may be there, whatever
// base the page kept), and is 409 when someone made the file meanwhile.
func TestDecapNewEntryOverDeleted(t *testing.T) {
	t.Parallel()
	repo, w, _ := decapBoxes(t)
	key := w.key(t, "ann", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	const p = "content/posts/hello.md"
	old := *getEntry(t, w.URL, key, "main", p).File.ID
	wantOK(t, rpc(t, w.URL, key, "deleteFiles", map[string]any{"branch": "main", "paths": []string{p}, "bases": map[string]string{p: old}, "options": map[string]any{}}))
	save := func() response {
		return rpc(t, w.URL, key, "persistEntry", map[string]any{"branch": "main",
			"dataFiles": []any{map[string]any{"slug": "hello", "path": p, "raw": "---\ntitle: Hello\n---\nBorn again.\n", "base": old}},
			"assets":    []any{}, "options": map[string]any{"collectionName": "posts", "newEntry": true}})
	}
	wantOK(t, save())
	if !strings.Contains(git(t, repo.bare, "show", "main:"+p), "Born again.") {
		t.Fatal("the new entry is not written")
	}
	wantError(t, save(), 409, "CONFLICT")
}
