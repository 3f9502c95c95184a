package main

import (
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
)

// TestGolden runs the chapter and compares its whole output — step lines with their values,
// the poll tables and the offsets — with the golden file: first the sequence of step labels (the
// flow), then every line. `go test ./ch10-litepull -update` rewrites it.
func TestGolden(t *testing.T) {
	mqtest.Golden(t, "testdata/ch10-litepull.golden", run, mqtest.InDir)
}

// The run removes the temp dir it made for itself when no Dir is given.
func TestRunCleansUpItsTempDir(t *testing.T) { mqtest.RunLeavesNoTempDir(t, run, mqtest.InDir) }
