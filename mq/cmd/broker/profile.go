package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile starts the CPU profile of -cpuprofile into a new file at path (truncating
// one that exists) and returns the function that stops it and closes the file. Errors: the
// file cannot be created, or a profile is already running (runtime/pprof allows one).
func startCPUProfile(path string) (stop func() error, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("cpuprofile %s: %w", path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
