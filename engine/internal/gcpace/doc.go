// Package gcpace holds the process's tuning of the garbage collector
// while large jobs run (the content search's build), in one
// mutex-guarded record: the percent (GOGC) each job sets is saved
// before the first and put back after the last.
package gcpace
