package main

import "runtime"

// gcProcs is how many Ps (GOMAXPROCS) folio serves with on a machine of 2
// or 3 CPUs. With fewer than 4 Ps, Go's collector marks with a fractional
// worker on each P, which runs before the P's queue of requests until it
// has had 30% of the mark phase so far: on a box holding a 100k-item
// media library a mark phase lasts 150–300 ms, and requests waited behind
// stretches of up to 17 ms of it (docs/performance.md, "The p99 under saturation").
// From 4 Ps the collector runs a dedicated worker on a P of its own
// instead, and the kernel shares the cores between it and the Ps serving
// requests in slices of a millisecond or so: in make bench on 2 cores the
// p99 of GET /pages/{slug} under saturation fell from 15.8–18.2 ms to
// 8.2–10.8 ms, for up to a fifth more CPU per request.
const gcProcs = 4

// servingProcs is the GOMAXPROCS to serve with, given the GOMAXPROCS
// environment variable, the CPUs the process may run on and the Ps the
// runtime chose. It is raised to gcProcs only on 2 or 3 CPUs, and only
// when nothing chose the number: not when GOMAXPROCS is set, and not
// when a container's CPU limit made the runtime choose fewer Ps than CPUs.
// On one CPU more Ps than cores only adds switching (measured worse).
func servingProcs(env string, cpus, procs int) int {
	if env != "" || procs != cpus || cpus < 2 || cpus >= gcProcs {
		return procs
	}
	return gcProcs
}

// raiseProcs applies servingProcs and returns the Ps before and after.
func raiseProcs(env string) (before, after int) {
	before = runtime.GOMAXPROCS(0)
	after = servingProcs(env, runtime.NumCPU(), before)
	if after != before {
		runtime.GOMAXPROCS(after)
	}
	return before, after
}
