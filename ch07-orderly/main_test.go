package main

import (
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
)

// TestGolden runs the chapter and compares its whole output — step lines with their values, the
// listeners' lines and the tables of queues, locks and orders — with the golden file: first the
// sequence of step labels (the flow), then every line. `go test ./ch07-orderly -update`
// rewrites it.
func TestGolden(t *testing.T) { mqtest.Golden(t, "testdata/ch07-orderly.golden", run, mqtest.InDir) }

// The run removes the temp dir it made for itself when no Dir is given.
func TestRunCleansUpItsTempDir(t *testing.T) { mqtest.RunLeavesNoTempDir(t, run, mqtest.InDir) }
