package media

import "strings"

// compacted returns a copy of it whose strings are slices of one string
// and whose Sizes are a slice of their own. An item decoded from a
// sidecar or a cache holds a dozen separately allocated strings; a
// library of 100k items held 600k of them, which the garbage collector
// marks on every cycle while the box serves (a cycle's mark phase at 100k
// items took 200–300 ms on one core, see docs/performance.md "The p99 under
// saturation"). One allocation per item takes 500k of those objects away.
// Items loaded in bulk (at Open, from a checkpoint) are compacted; the few
// written while serving are not.
func compacted(it *Item) *Item {
	c := *it
	fields := c.stringFields()
	n := 0
	for _, f := range fields {
		n += len(*f)
	}
	c.Sizes = append([]Size(nil), it.Sizes...)
	for i := range c.Sizes {
		n += len(c.Sizes[i].Key) + len(c.Sizes[i].URL)
		fields = append(fields, &c.Sizes[i].Key, &c.Sizes[i].URL)
	}
	var b strings.Builder
	b.Grow(n)
	for _, f := range fields {
		b.WriteString(*f)
	}
	all := b.String()
	for _, f := range fields {
		*f, all = all[:len(*f)], all[len(*f):]
	}
	return &c
}

// stringFields points at the string fields of it, Sizes excepted.
func (it *Item) stringFields() []*string {
	return []*string{&it.ID, &it.Filename, &it.MimeType, &it.Alt, &it.Title, &it.Description,
		&it.Folder, &it.Key, &it.Placeholder, &it.DominantColor, &it.URL}
}
