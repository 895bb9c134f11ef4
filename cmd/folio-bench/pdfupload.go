package main

import (
	"bytes"
	"fmt"
)

// smallPDF is the PDF of media's BenchmarkUpload: the upload is the
// library's write path (the original, its sidecar, the claim and the log
// entry made durable), not the bytes.
var smallPDF = []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")

// pdfUploads are the small uploads the write path of the local library
// costs: pdfUploadCount PDFs POSTed one at a time to one process on an
// empty library (after a few not counted), each a new item.
const pdfUploadCount, pdfUploadWarm = 60, 5

func (b *bench) pdfUploads() error {
	s, _, err := b.uploadServer("folio-pdf")
	if err != nil {
		return err
	}
	defer s.stop()
	var wall []float64
	var c0 float64
	for i := range pdfUploadWarm + pdfUploadCount {
		if i == pdfUploadWarm {
			c, err := cpuTime(s.pid())
			if err != nil {
				return err
			}
			c0 = ms(c)
		}
		status, body, d, err := b.upload(s.base, fmt.Sprintf("doc-%d.pdf", i), bytes.NewReader(smallPDF))
		if err := firstErr(err, uploadOK(status, body)); err != nil {
			return fmt.Errorf("upload %d: %w", i, err)
		}
		if i >= pdfUploadWarm {
			wall = append(wall, ms(d))
		}
	}
	c1, err := cpuTime(s.pid())
	if err != nil {
		return err
	}
	b.add(row{Figure: "small PDF upload to local storage, p50", Sum: summarize(wall), Unit: unitMS2,
		Note: fmt.Sprintf("POST /api/v1/media of a %d-byte PDF (media's BenchmarkUpload's), %d one at a time after %d not counted, a new connection each; min and max are of the uploads", len(smallPDF), pdfUploadCount, pdfUploadWarm)})
	cpu := (ms(c1) - c0) / pdfUploadCount
	b.add(row{Figure: "… folio CPU time per small PDF upload", Sum: summary{Median: cpu, Min: cpu, Max: cpu, N: 1}, Unit: unitMS2,
		Note: "/proc/<pid>/stat utime+stime over the counted uploads, divided by their number"})
	return nil
}
