package main

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
)

// words is a small vocabulary. Generated prose need not mean anything; it
// must only have the shape (word lengths, punctuation, Markdown blocks) that
// the parser and renderer see in real sites.
var words = strings.Fields(`
the a of and to in is for on with as by at from that this it be are was
trail tent pack boot summit ridge valley river lake forest meadow glacier
camp stove water filter map compass route weather storm sun wind snow rain
light heavy warm cold fast slow long short high low steep gentle rocky
hike climb walk run paddle ski cook sleep carry pitch repair test build
gear review guide season spring summer autumn winter morning evening night
sleeping bag pad jacket layer wool down synthetic fabric seam zip buckle
strap frame hip belt shoulder load weight gram kilo metre mile hour day week
we you they our your their every each some many few most other new old
first last next best better good great simple clear safe strong durable
because while when where after before during between under over through
team customer order shipping return warranty price size colour fit comfort
install configure deploy update upgrade release version feature option flag
server client request response cache index search query field value record
`)

var titleWords = strings.Fields(`
alpine trail summit ridge valley river lake forest meadow glacier canyon
coastal desert tundra highland lowland northern southern eastern western
ultralight rugged compact modular classic essential advanced beginner
tent pack boot stove filter jacket quilt bag pad pole lantern compass
guide review notes journal diary checklist handbook primer manual story
`)

var languages = []string{"go", "yaml", "json", "bash", "js"}

// textGen draws words, sentences and Markdown blocks from one seeded
// source, so that a seed determines every byte written.
type textGen struct {
	r *rand.Rand
}

func (g *textGen) word() string { return words[g.r.IntN(len(words))] }

func (g *textGen) titleWord() string { return titleWords[g.r.IntN(len(titleWords))] }

// title returns n capitalised title words.
func (g *textGen) title(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		w := g.titleWord()
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// slugWords returns n title words joined by dashes.
func (g *textGen) slugWords(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte('-')
		}
		b.WriteString(g.titleWord())
	}
	return b.String()
}

// sentence appends a sentence of n words to b and returns n.
func (g *textGen) sentence(b *bytes.Buffer, n int, links []string) int {
	for i := range n {
		w := g.word()
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		switch k := g.r.IntN(40); {
		case k == 0 && len(links) > 0:
			b.WriteString("[" + w + "](" + links[g.r.IntN(len(links))] + ")")
		case k == 1:
			b.WriteString("**" + w + "**")
		case k == 2:
			b.WriteString("`" + w + "`")
		case k == 3:
			b.WriteString("_" + w + "_")
		default:
			b.WriteString(w)
		}
	}
	b.WriteString(". ")
	return n
}

// markdown appends a Markdown body of about n words: paragraphs, headings,
// lists, links and fenced code.
func (g *textGen) markdown(b *bytes.Buffer, n int, links []string) {
	written := 0
	for written < n {
		switch k := g.r.IntN(10); {
		case k == 0:
			b.WriteString("## " + g.title(2+g.r.IntN(4)) + "\n\n")
			written += 3
		case k == 1:
			b.WriteString("### " + g.title(2+g.r.IntN(3)) + "\n\n")
			written += 3
		case k == 2:
			items := 3 + g.r.IntN(4)
			ordered := g.r.IntN(3) == 0
			for i := range items {
				if ordered {
					b.WriteString(strconv.Itoa(i+1) + ". ")
				} else {
					b.WriteString("- ")
				}
				written += g.sentence(b, 3+g.r.IntN(8), links)
				b.WriteByte('\n')
			}
			b.WriteByte('\n')
		case k == 3:
			b.WriteString("```" + languages[g.r.IntN(len(languages))] + "\n")
			for range 2 + g.r.IntN(6) {
				b.WriteString(g.word() + " := " + g.word() + "(" + strconv.Itoa(g.r.IntN(1000)) + ")\n")
				written += 3
			}
			b.WriteString("```\n\n")
		case k == 4:
			b.WriteString("> ")
			written += g.sentence(b, 8+g.r.IntN(12), links)
			b.WriteString("\n\n")
		default:
			for range 2 + g.r.IntN(5) {
				written += g.sentence(b, 6+g.r.IntN(14), links)
			}
			b.WriteString("\n\n")
		}
	}
}

// yamlString quotes s for YAML; generated strings hold no quotes or
// backslashes, so double quotes are enough.
func yamlString(s string) string { return `"` + s + `"` }
