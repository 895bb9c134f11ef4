//go:build !race

package server_test

const raceOn = false
