package main

import (
	"runtime/debug"
)

// Garbage-collector settings mqbroker applies when the environment does not choose its own.
//
// The broker's live Go heap is small and flat (a few MiB while it stores gigabytes: the message
// bytes live in the mapped CommitLog and ConsumeQueue files, outside the Go heap), so Go's
// default GOGC=100 — collect whenever the heap doubles — runs a cycle every few MiB of
// per-request garbage. A higher percent lets the heap grow to about five times the live heap
// between cycles, and the soft limit makes the collector work harder again before the Go
// runtime's memory (heap, stacks, runtime; not the mappings) passes it.
const (
	brokerGCPercent   = 400       // debug.SetGCPercent: heap growth between cycles, percent of the live heap
	brokerMemoryLimit = 128 << 20 // debug.SetMemoryLimit: soft limit, bytes
)

// gcSettings is what tuneGC set: -1 where the environment's GOGC or GOMEMLIMIT was kept.
type gcSettings struct {
	GCPercent   int   // the percent set, or -1 when GOGC was given
	MemoryLimit int64 // the soft limit set in bytes, or -1 when GOMEMLIMIT was given
}

// tuneGC sets brokerGCPercent unless GOGC is set in the environment and brokerMemoryLimit unless
// GOMEMLIMIT is (getenv is os.Getenv; the runtime has already applied the variables that are
// set). It returns what it set. Only main calls it: the settings are the process's.
func tuneGC(getenv func(string) string) gcSettings {
	s := gcSettings{GCPercent: -1, MemoryLimit: -1}
	if getenv("GOGC") == "" {
		debug.SetGCPercent(brokerGCPercent)
		s.GCPercent = brokerGCPercent
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(brokerMemoryLimit)
		s.MemoryLimit = brokerMemoryLimit
	}
	return s
}
