package main

import "testing"

func TestServingProcs(t *testing.T) {
	for _, c := range []struct {
		env         string
		cpus, procs int
		want        int
	}{
		{"", 2, 2, 4}, // a 2-CPU box: raised
		{"", 3, 3, 4}, // 3 CPUs: the collector is still fractional
		{"", 1, 1, 1}, // one CPU: left alone
		{"", 4, 4, 4}, // 4 CPUs: a dedicated worker already
		{"", 16, 16, 16},
		{"2", 2, 2, 2}, // GOMAXPROCS set: its value stands
		{"8", 2, 8, 8},
		{"", 2, 1, 1},  // a container's CPU limit chose fewer Ps
		{"", 64, 2, 2}, // idem, on a big host
	} {
		if got := servingProcs(c.env, c.cpus, c.procs); got != c.want {
			t.Errorf("servingProcs(%q, %d CPUs, %d Ps) = %d, want %d", c.env, c.cpus, c.procs, got, c.want)
		}
	}
}
