package main

import (
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
)

// TestGolden runs the tour and compares its whole output with the golden file: first the
// sequence of step labels, then every line. `go test ./tutorial/tour -update` rewrites it.
func TestGolden(t *testing.T) { mqtest.Golden(t, "testdata/tour.golden", run, inDir) }

// The run removes the temp dir it made for itself when no Dir is given.
func TestRunCleansUpItsTempDir(t *testing.T) { mqtest.RunLeavesNoTempDir(t, run, inDir) }
