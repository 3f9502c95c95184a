package main

import (
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
)

// TestGolden runs the chapter and compares its whole output — step lines with their values,
// the listener's lines and the queue tables — with the golden file: first the sequence of step
// labels (the flow), then every line. `go test ./ch08-transaction -update` rewrites it.
func TestGolden(t *testing.T) { mqtest.Golden(t, "testdata/ch08-transaction.golden", run, withDir) }

// The run removes the temp dir it made for itself when no Dir is given.
func TestRunCleansUpItsTempDir(t *testing.T) { mqtest.RunLeavesNoTempDir(t, run, withDir) }

func withDir(dir string) config { return config{Dir: dir} }
