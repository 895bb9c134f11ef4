package decap

import (
	"context"
	"encoding/json"
	"path"
	"slices"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/engine/write"
	"go.yaml.in/yaml/v3"
)

// Decap CMS's i18n on a site with locales (docs/decap.md "Translations").
// The generated config gives the folder collections (content/<type>,
// pages) an i18n structure from the site's layout: folder is
// multiple_folders, file is multiple_files, fields is single_file. Decap
// then names a locale's file by its own layout:
//
//	multiple_folders  content/<type>/<locale>/<slug>.md, pages/<locale>/<slug>.md
//	multiple_files    content/<type>/<slug>.<locale>.md (the default locale's too)
//	single_file       the file itself, in Decap's form (en: {…}, fr: {…})
//
// which the RPC maps to the file the site has for that locale and
// document (content/fr/posts/a.md in a Hugo layout, a.md for the default
// locale of the file layout) and back, so that Decap reads and writes
// the site's own files, each write going through the locale-aware write
// API (engine/write reads a locale's file as its locale's document).

// Decap's i18n structures.
const (
	structFolders = "multiple_folders"
	structFiles   = "multiple_files"
	structSingle  = "single_file"
)

// i18nStructure is the Decap structure of a site's layout; "" for a site
// without locales.
func i18nStructure(c *content.I18n) string {
	if c == nil {
		return ""
	}
	switch c.Layout {
	case content.LayoutFile:
		return structFiles
	case content.LayoutFields:
		return structSingle
	}
	return structFolders
}

// localeMap maps Decap's paths of a snapshot's site with locales to the
// repository's; nil for a site without (or the single_file structure,
// whose paths are the repository's).
type localeMap struct {
	snap      *engine.Snapshot
	c         *content.I18n
	structure string
}

func (s *Service) localeMap() *localeMap {
	snap := s.Engine.Published()
	if snap == nil || snap.Site == nil || snap.Site.I18n == nil {
		return nil
	}
	st := i18nStructure(snap.Site.I18n)
	if st == structSingle {
		return nil
	}
	return &localeMap{snap: snap, c: snap.Site.I18n, structure: st}
}

// collectionOf is the folder collection a Decap path is in (content/<type>
// or pages) and the rest of the path; ok false for any other path.
func collectionOf(p string) (folder, rest string, ok bool) {
	if r, found := strings.CutPrefix(p, "pages/"); found {
		return "pages", r, true
	}
	if r, found := strings.CutPrefix(p, "content/"); found {
		typ, tail, found := strings.Cut(r, "/")
		if found && content.ValidType(typ) {
			return "content/" + typ, tail, true
		}
	}
	return "", "", false
}

// fromDecap reads a Decap path as a locale and the path of the file in
// that locale's site; ok false for a path Decap's i18n does not name.
func (m *localeMap) fromDecap(p string) (loc, virt string, ok bool) {
	folder, rest, ok := collectionOf(p)
	if !ok {
		return "", "", false
	}
	switch m.structure {
	case structFolders:
		code, tail, found := strings.Cut(rest, "/")
		if _, known := m.c.Locale(code); !found || !known {
			return "", "", false
		}
		return code, folder + "/" + tail, true
	case structFiles:
		ext := path.Ext(rest)
		stem := strings.TrimSuffix(rest, ext)
		i := strings.LastIndexByte(stem, '.')
		if i < 0 {
			return "", "", false
		}
		if _, known := m.c.Locale(stem[i+1:]); !known {
			return "", "", false
		}
		return stem[i+1:], folder + "/" + stem[:i] + ext, true
	}
	return "", "", false
}

// toDecap is Decap's path of a locale's file whose path in its locale's
// site is virt.
func (m *localeMap) toDecap(loc, virt string) (string, bool) {
	folder, rest, ok := collectionOf(virt)
	if !ok {
		return "", false
	}
	switch m.structure {
	case structFolders:
		return folder + "/" + loc + "/" + rest, true
	case structFiles:
		ext := path.Ext(rest)
		return folder + "/" + strings.TrimSuffix(rest, ext) + "." + loc + ext, true
	}
	return "", false
}

// repoPath is the repository file of a Decap path at commit: the
// locale's file the commit has, else where a new one goes. A path
// Decap's i18n does not name is itself.
func (s *Service) repoPath(ctx context.Context, m *localeMap, commit, p string) (string, error) {
	if m == nil {
		return p, nil
	}
	loc, virt, ok := m.fromDecap(p)
	if !ok {
		return p, nil
	}
	cands := write.LocaleFiles(m.snap, loc, virt)
	if len(cands) == 0 {
		return "", bad("%s: the site's layout has no place for it in locale %s", p, loc)
	}
	for _, c := range cands {
		found, err := s.exists(ctx, commit, c)
		if err != nil {
			return "", err
		}
		if found {
			return c, nil
		}
	}
	return cands[0], nil
}

// exists tells whether commit has a file at p.
func (s *Service) exists(ctx context.Context, commit, p string) (bool, error) {
	e, err := s.readEntry(ctx, commit, p)
	return e.Data != nil, err
}

// readEntryAs is readEntry of a path Decap names: the site's file of
// that locale, answered under Decap's name.
func (s *Service) readEntryAs(ctx context.Context, commit, p string) (entry, error) {
	real, err := s.repoPath(ctx, s.localeMap(), commit, p)
	if err != nil {
		return entry{}, err
	}
	e, err := s.readEntry(ctx, commit, real)
	e.File.Path = p
	if e.Data != nil {
		d := s.decapSingle(p, *e.Data)
		e.Data = &d
	}
	return e, err
}

// entriesByFolderAs is entriesByFolder of a folder collection with
// i18n: the files of every locale whose path in its locale is in the
// folder (listed in the folders the layout keeps them in), named by
// Decap's paths.
func (s *Service) entriesByFolderAs(ctx context.Context, branch, folder, ext string, depth int) ([]entry, error) {
	m := s.localeMap()
	if _, _, ok := collectionOf(folder + "/x"); m == nil || !ok {
		es, err := s.entriesByFolder(ctx, branch, folder, ext, depth)
		return s.singleEntries(es), err
	}
	// Decap asks one level deeper for multiple_folders (the locale's).
	if m.structure == structFolders && depth > 1 {
		depth--
	}
	var dirs []string
	for _, l := range m.c.Codes() {
		for _, p := range write.LocaleFiles(m.snap, l, folder+"/x."+ext) {
			if d := path.Dir(p); !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	slices.Sort(dirs)
	var out []entry
	seen := map[string]bool{}
	for _, dir := range dirs {
		es, err := s.entriesByFolder(ctx, branch, dir, ext, depth)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if seen[e.File.Path] {
				continue
			}
			seen[e.File.Path] = true
			loc, virt, ok := m.c.Classify(e.File.Path)
			if !ok {
				continue
			}
			rest, in := strings.CutPrefix(virt, folder+"/")
			if !in || (depth > 0 && strings.Count(rest, "/") >= depth) {
				continue
			}
			name, ok := m.toDecap(loc, virt)
			if !ok {
				continue
			}
			e.File.Path = name
			out = append(out, e)
		}
	}
	if out == nil {
		out = []entry{}
	}
	return out, nil
}

// i18nField is a field's i18n in Decap's config: text is translated,
// every other value (numbers, dates, references, media) duplicated from
// the default locale, so that each locale's file has it.
func i18nField(w *widget) {
	switch w.Widget {
	case "string", "text", "markdown":
		w.I18n = true
	case "object", "list":
		w.I18n = true
		for i := range w.Fields {
			i18nField(&w.Fields[i])
		}
		if w.Field != nil {
			i18nField(w.Field)
		}
	default:
		w.I18n = "duplicate"
	}
}

// i18nConfig is the config's top-level i18n block.
type i18nConfig struct {
	Structure     string   `yaml:"structure"`
	Locales       []string `yaml:"locales"`
	DefaultLocale string   `yaml:"default_locale"`
}

// addI18n gives a generated config the site's locales: the i18n block,
// and each folder collection i18n with its fields marked.
func addI18n(cfg *decapConfig, c *content.I18n) {
	st := i18nStructure(c)
	if st == "" {
		return
	}
	cfg.I18n = &i18nConfig{Structure: st, Locales: c.Codes(), DefaultLocale: c.Default}
	for i := range cfg.Collections {
		col := &cfg.Collections[i]
		if col.Folder == "" {
			continue // the globals file: its default locale's
		}
		col.I18n = true
		for j := range col.Fields {
			i18nField(&col.Fields[j])
		}
	}
}

// mapCommit is the commit a Decap path of a write to branch is mapped
// at: the branch's, else (a new cms/ branch) the published one's.
func (s *Service) mapCommit(ctx context.Context, branch string) string {
	if c, err := s.commitOf(ctx, branch); err == nil {
		return c
	}
	if snap := s.Engine.Published(); snap != nil {
		return snap.Commit
	}
	return ""
}

// repoFile is a data file of persistEntry with its paths mapped to the
// repository's.
func (s *Service) repoFile(ctx context.Context, branch string, f dataFile) (dataFile, error) {
	m := s.localeMap()
	if m == nil {
		return f, nil
	}
	commit := s.mapCommit(ctx, branch)
	var err error
	if f.Path, err = s.repoPath(ctx, m, commit, f.Path); err != nil {
		return f, err
	}
	if f.NewPath != "" {
		if f.NewPath, err = s.repoPath(ctx, m, commit, f.NewPath); err != nil {
			return f, err
		}
	}
	return f, nil
}

// repoPaths are deleteFiles' paths mapped to the repository's.
func (s *Service) repoPaths(ctx context.Context, branch string, paths []string) ([]string, error) {
	m := s.localeMap()
	if m == nil {
		return paths, nil
	}
	commit := s.mapCommit(ctx, branch)
	out := make([]string, 0, len(paths))
	var missing []string
	for _, p := range paths {
		if _, ok := uploadKey(p); ok {
			out = append(out, p)
			continue
		}
		real, err := s.repoPath(ctx, m, commit, p)
		if err != nil {
			return nil, err
		}
		// Decap deletes an entry by the paths of every locale: the
		// locales it has no file in are left out.
		if _, _, ok := m.fromDecap(p); ok {
			found, err := s.exists(ctx, commit, real)
			if err != nil {
				return nil, err
			}
			if !found {
				missing = append(missing, real)
				continue
			}
		}
		out = append(out, real)
	}
	if len(out) == 0 {
		return missing, nil // none there: deleteFiles says so
	}
	return out, nil
}

// dropUntranslated leaves out of an entry's data files those of a
// locale other than the default that the branch has no file for and
// that hold no translation (no title, no body): Decap sends one for
// every locale, with the fields it duplicates from the default locale,
// and such a file is no translation (the model would refuse it without a
// title).
func (s *Service) dropUntranslated(ctx context.Context, branch string, files []dataFile) ([]dataFile, error) {
	m := s.localeMap()
	if m == nil || len(files) < 2 {
		return files, nil
	}
	commit := s.mapCommit(ctx, branch)
	out := files[:0:0]
	for _, f := range files {
		loc, _, ok := m.fromDecap(f.Path)
		if ok && loc != m.c.Default && f.NewPath == "" {
			real, err := s.repoPath(ctx, m, commit, f.Path)
			if err != nil {
				return nil, err
			}
			found, err := s.exists(ctx, commit, real)
			if err != nil {
				return nil, err
			}
			if !found && untranslated(real, f.Raw) {
				continue
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// untranslated tells a file with neither a title nor a body.
func untranslated(p, raw string) bool {
	d, err := content.Parse(p, []byte(raw))
	if err != nil {
		return false
	}
	if t, ok := d.Get("title").(string); ok && strings.TrimSpace(t) != "" {
		return false
	}
	return strings.TrimSpace(d.Body.Source()) == ""
}

// i18nWorkflow answers the workflow actions that name files
// (unpublishedEntry, unpublishedEntryDataFile) on a site with locales;
// done is false for every other call.
func (s *Service) i18nWorkflow(ctx context.Context, who Caller, branch, action string, params json.RawMessage) (any, bool, error) {
	if (action != "unpublishedEntry" && action != "unpublishedEntryDataFile") || s.localeMap() == nil {
		return nil, false, nil
	}
	var p workflowParams
	if err := decodeParams(params, &p); err != nil {
		return nil, true, err
	}
	if action == "unpublishedEntry" && p.ID != "" {
		i := strings.Index(p.ID, "/")
		if i < 0 {
			return nil, true, bad("params.id: want <collection>/<slug>")
		}
		p.Collection, p.Slug = p.ID[:i], p.ID[i+1:]
	}
	cms, err := cmsBranch(p.Collection, p.Slug)
	if err != nil {
		return nil, true, err
	}
	res, err := s.workflowAs(ctx, who, branch, action, cms, p)
	return res, true, err
}

// workflowAs is workflow for Decap's names of files: an unpublished
// entry's diffs name each locale's file by Decap's path, and its data
// file is read from the site's file of that locale.
func (s *Service) workflowAs(ctx context.Context, who Caller, branch, action, cms string, p workflowParams) (any, error) {
	m := s.localeMap()
	if m == nil {
		return s.workflow(ctx, who, branch, action, cms, p)
	}
	switch action {
	case "unpublishedEntryDataFile":
		if _, _, ok := m.fromDecap(p.Path); ok {
			real, err := s.repoPath(ctx, m, s.mapCommit(ctx, cms), p.Path)
			if err != nil {
				return nil, err
			}
			p.Path = real
		}
	case "unpublishedEntry":
		res, err := s.workflow(ctx, who, branch, action, cms, p)
		if err != nil {
			return res, err
		}
		if out, ok := res.(map[string]any); ok {
			if diffs, ok := out["diffs"].([]diff); ok {
				for i := range diffs {
					d := &diffs[i]
					name := m.decapName(d.Path)
					for _, f := range []*string{&d.OldPath, &d.NewPath, &d.ID} {
						if *f == d.Path {
							*f = name
						}
					}
					d.Path = name
				}
			}
		}
		return res, nil
	}
	return s.workflow(ctx, who, branch, action, cms, p)
}

// decapName is Decap's path of a repository file (itself when Decap's
// i18n does not name it).
func (m *localeMap) decapName(p string) string {
	loc, virt, ok := m.c.Classify(p)
	if !ok {
		return p
	}
	if name, ok := m.toDecap(loc, virt); ok {
		return name
	}
	return p
}

// Decap's single_file structure reads only its own form of a file: a map
// per locale at the top level (en: {title: …, body: …}, fr: {…}); it
// shows nothing of values outside them (a file in the per-key form,
// title: {en: …, fr: …}, values shared by every locale, a plain file,
// the Markdown body after the front matter), and a save from it would
// drop them. decapSingle gives Decap a file of a document in any other
// form as each locale reads it (content.Localize): a map per locale of
// its values and body. A save from Decap then writes that form, each
// locale reading as before.

// decapSingle is the data of the file p as Decap's single_file reads it
// on a site with the fields layout: raw itself when it is in that form
// already, or is no document, or does not parse.
func (s *Service) decapSingle(p, raw string) string {
	return decapSingle(s.singleI18n(), p, raw)
}

// singleI18n is the locales of the served site when its Decap structure
// is single_file; nil otherwise.
func (s *Service) singleI18n() *content.I18n {
	snap := s.Engine.Published()
	if snap == nil || snap.Site == nil || i18nStructure(snap.Site.I18n) != structSingle {
		return nil
	}
	return snap.Site.I18n
}

func decapSingle(c *content.I18n, p, raw string) string {
	if c == nil {
		return raw
	}
	ext := path.Ext(p)
	if d, ok := docOf(p); !ok || d.Kind == write.KindGlobals || (ext != ".md" && ext != ".markdown" && ext != ".yaml" && ext != ".yml") {
		return raw
	}
	doc, err := content.Parse(p, []byte(raw))
	if err != nil {
		return raw
	}
	pure := strings.TrimSpace(doc.Body.Source()) == ""
	for k, v := range doc.Fields() {
		if _, isCode := c.Locale(k); !isCode {
			pure = false
		} else if _, isMap := v.(map[string]any); !isMap {
			pure = false
		}
	}
	if pure {
		return raw
	}
	form := map[string]any{}
	for _, loc := range c.Codes() {
		ld, in := content.Localize(doc, loc, c)
		if !in {
			continue
		}
		m := make(map[string]any, ld.Len()+1)
		for k, v := range ld.Fields() {
			m[k] = v
		}
		if b := ld.Body.Source(); strings.TrimSpace(b) != "" && (ext == ".md" || ext == ".markdown") {
			m["body"] = b
		}
		form[loc] = m
	}
	out, err := yaml.Marshal(form)
	if err != nil {
		return raw
	}
	if ext == ".yaml" || ext == ".yml" {
		return string(out)
	}
	return "---\n" + string(out) + "---\n"
}

// singleEntries is decapSingle of entries.
func (s *Service) singleEntries(es []entry) []entry {
	c := s.singleI18n()
	if c == nil {
		return es
	}
	for i := range es {
		if es[i].Data != nil {
			d := decapSingle(c, es[i].File.Path, *es[i].Data)
			es[i].Data = &d
		}
	}
	return es
}
