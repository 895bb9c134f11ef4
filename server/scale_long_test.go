//go:build long

package server_test

// longTests: built with -tags long (make test-long), the property tests
// and TestMediaUploadManyFiles run at their full scale; see scale_test.go.
const longTests = true
