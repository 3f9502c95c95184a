package main

import (
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
)

// TestGolden runs the chapter and compares its whole output — step lines with their values,
// and the tables of CommitLog, ConsumeQueue and index bytes — with the golden file: first the
// sequence of step labels (the flow), then every line (the values).
// `go test ./ch03-store -update` rewrites it.
func TestGolden(t *testing.T) { mqtest.Golden(t, "testdata/ch03-store.golden", run, mqtest.InDir) }

// The run removes the temp dir it made for itself when no Dir is given.
func TestRunCleansUpItsTempDir(t *testing.T) { mqtest.RunLeavesNoTempDir(t, run, mqtest.InDir) }
