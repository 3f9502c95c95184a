package main

import (
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
)

// TestGolden runs the chapter and compares its whole output — step lines with their values,
// and the tables — with the golden file: first the sequence of step labels (the flow), then
// every line (the values). `go test ./ch01-namesrv -update` rewrites the file.
func TestGolden(t *testing.T) { mqtest.Golden(t, "testdata/ch01-namesrv.golden", run, mqtest.InDir) }

// The run removes the temp dir it made for itself when no Dir is given.
func TestRunCleansUpItsTempDir(t *testing.T) { mqtest.RunLeavesNoTempDir(t, run, mqtest.InDir) }
