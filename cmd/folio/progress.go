package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress reports a batch command's work (media import, media
// regenerate): on a terminal a progress bar of files and bytes with rate
// and ETA, and elsewhere (a pipe, a file, a test) one line per item, so
// that scripts read the output as before. Errors go to stderr either way.
type progress struct {
	out, errw io.Writer
	bar       *progressbar.ProgressBar // nil unless out is a terminal
	files     int
	done      int
	verb      string
}

// newProgress starts the report of files items of bytes bytes in all.
// Only an *os.File that is a terminal gets the bar.
func newProgress(stdout, stderr io.Writer, verb string, files int, bytes int64) *progress {
	p := &progress{out: stdout, errw: stderr, files: files, verb: verb}
	f, ok := stdout.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) || files == 0 {
		return p
	}
	p.startBar(f, bytes)
	return p
}

// startBar draws the bar on w, for bytes bytes in all.
func (p *progress) startBar(w io.Writer, bytes int64) {
	p.bar = progressbar.NewOptions64(bytes,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(p.description()),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionShowTotalBytes(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
		progressbar.OptionSetRenderBlankState(true),
	)
}

func (p *progress) description() string {
	return fmt.Sprintf("%s %d/%d files", p.verb, p.done, p.files)
}

// reader counts the bytes of r on the bar as they are read.
func (p *progress) reader(r io.Reader) io.Reader {
	if p.bar == nil {
		return r
	}
	return io.TeeReader(r, p.bar)
}

// item reports one item done, and the bytes of the items done so far
// (whatever reader counted of them); line is its line when there is no
// bar.
func (p *progress) item(line string, bytesDone int64) {
	p.done++
	if p.bar == nil {
		fmt.Fprintln(p.out, line)
		return
	}
	p.bar.Describe(p.description())
	p.bar.Set64(bytesDone)
}

// fail reports one item that failed, on stderr, above the bar.
func (p *progress) fail(name string, err error, bytesDone int64) {
	p.done++
	if p.bar != nil {
		p.bar.Clear()
	}
	fmt.Fprintf(p.errw, "%s: %v\n", name, err)
	if p.bar != nil {
		p.bar.Describe(p.description())
		p.bar.Set64(bytesDone)
	}
}

// finish ends the bar, if the last item did not.
func (p *progress) finish() {
	if p.bar != nil && !p.bar.IsFinished() {
		p.bar.Finish()
	}
}
