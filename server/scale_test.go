//go:build !long

package server_test

// longTests is false in the ordinary build: the property tests (see
// TestFilterProperty) run a smaller number of rounds, enough to cover every
// path once, and TestMediaUploadManyFiles proves the bound on the files of
// an upload at 20 rather than 1000; make test-long (-tags long) runs them
// at their full scale.
const longTests = false
