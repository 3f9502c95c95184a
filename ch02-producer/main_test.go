package main

import (
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
)

// TestGolden runs the chapter and compares its whole output — step lines with their values,
// the send results and the fault tables — with the golden file: first the sequence of step
// labels (the flow), then every line (the values). `go test ./ch02-producer -update` rewrites it.
func TestGolden(t *testing.T) { mqtest.Golden(t, "testdata/ch02-producer.golden", run, mqtest.InDir) }

// The run removes the temp dir it made for itself when no Dir is given.
func TestRunCleansUpItsTempDir(t *testing.T) { mqtest.RunLeavesNoTempDir(t, run, mqtest.InDir) }
