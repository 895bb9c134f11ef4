package main

import (
	"fmt"
	"slices"
	"time"
)

// summary is the median, minimum and maximum of a set of runs.
type summary struct {
	Median, Min, Max float64
	N                int
}

func summarize(v []float64) summary {
	if len(v) == 0 {
		return summary{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return summary{Median: med, Min: s[0], Max: s[len(s)-1], N: len(s)}
}

// percentile of sorted samples, nearest rank.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted)-1) + 0.5)
	return sorted[i]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// unit formats a value of a row.
type unit struct {
	suffix string
	prec   int
}

var (
	unitMS  = unit{" ms", 1}
	unitMS2 = unit{" ms", 2}
	unitS   = unit{" s", 2}
	unitMB  = unit{" MB", 0}
	unitMB1 = unit{" MB", 1}
	unitMBs = unit{" MB/s", 0}
	unitRPS = unit{" req/s", 0}
	unitUS  = unit{" µs", 1}
	unitX   = unit{"×", 2}
	unitN   = unit{"", 0}
)

func (u unit) format(v float64) string { return fmt.Sprintf("%.*f%s", u.prec, v, u.suffix) }

// row is one line of the results table.
type row struct {
	Figure string
	Sum    summary
	Unit   unit
	Target string
	// OK is "yes", "no" or "" when the figure has no target.
	OK string
	// Against are the other binaries' summaries with -against, in its
	// order; nil without.
	Against []summary
	// Note explains a figure (setup, what is included); printed below the table.
	Note string
}

// check sets OK from a predicate on the median.
func (r row) check(target string, ok bool) row {
	r.Target = target
	if ok {
		r.OK = "yes"
	} else {
		r.OK = "**no**"
	}
	return r
}
